#include "common.h"

void hashed(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 1>& bins) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    bins[r.user % 8] += r.value;
  }
}
