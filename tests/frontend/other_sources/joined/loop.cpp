#include "../split/model.h"

// The same loop as split/loop.cpp with the helpers' bodies in this file: the same plan.
void train(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 2>& W,
           rotor::DistArray<float, 2>& H, int k, const Stepper& s) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    const float g = s.step(r.value);
    nudge(W, r.user, k, g);
    nudge(H, r.item, k, g);
  }
}

float Stepper::step(float err) const {
  return rate * err;
}

void nudge(rotor::DistArray<float, 2>& A, int row, int k, float g) {
  for (int f = 0; f < k; ++f) {
    A(row, f) += g;
  }
}
