// A helper and a method declared here and defined in model.cpp, a separate source of the program.
#pragma once
#include "../../cases/common.h"

struct Stepper {
  float rate;
  float step(float err) const;
};

void nudge(rotor::DistArray<float, 2>& A, int row, int k, float g);
