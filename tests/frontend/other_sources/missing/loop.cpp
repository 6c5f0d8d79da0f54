#include "helper.h"

// No source of the program defines nudge: the loop stays serial.
void train(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 2>& W) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    nudge(W, r.user, r.value);
  }
}
