#include "helper.h"

// nudge (helper.cpp) counts its calls in a global the loop also reads: the loop stays serial.
void train(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 2>& W) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    nudge(W, r.user, r.value + static_cast<float>(calls));
  }
}
