#pragma once
#include "../../cases/common.h"

extern int calls;
void nudge(rotor::DistArray<float, 2>& A, int row, float g);
