#pragma once
#include "../../cases/common.h"

void nudge(rotor::DistArray<float, 2>& A, int row, float g);
