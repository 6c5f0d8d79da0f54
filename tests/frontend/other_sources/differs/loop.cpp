#include "helper.h"

// other.cpp defines scale for a different Params: the import fails and the loop stays serial.
void train(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 2>& W, const Params& p) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    W(r.user, 0) += scale(p, r.value);
  }
}
