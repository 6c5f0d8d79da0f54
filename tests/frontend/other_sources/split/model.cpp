#include "model.h"

float Stepper::step(float err) const {
  return rate * err;
}

void nudge(rotor::DistArray<float, 2>& A, int row, int k, float g) {
  for (int f = 0; f < k; ++f) {
    A(row, f) += g;
  }
}
