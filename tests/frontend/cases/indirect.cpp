#include "common.h"

void indirect(rotor::Dataset<Rating>& ratings, rotor::DistArray<std::int32_t, 1>& perm,
              rotor::DistArray<float, 1>& out) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    out[perm[r.user]] += r.value;
  }
}
