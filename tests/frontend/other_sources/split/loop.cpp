#include "model.h"

// Stepper::step and nudge are defined in model.cpp: rotor-cc reads their bodies from there.
void train(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 2>& W,
           rotor::DistArray<float, 2>& H, int k, const Stepper& s) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    const float g = s.step(r.value);
    nudge(W, r.user, k, g);
    nudge(H, r.item, k, g);
  }
}
