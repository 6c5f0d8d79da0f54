#include "common.h"

void positive(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 1>& bu) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    if (r.value <= 0) {
      continue;
    }
    bu[r.user] += r.value;
  }
}
