#include "helper.h"

// nudge is defined in impl/helper_impl.cpp, found only when that file is on the command line.
void train(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 2>& W) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    nudge(W, r.user, r.value);
  }
}
