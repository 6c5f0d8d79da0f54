#pragma once
#include "../../cases/common.h"

struct Params {
  float a;
};
float scale(const Params& p, float v);
