#include "common.h"

void until_negative(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 1>& bu) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    if (r.value < 0) {
      break;
    }
    bu[r.user] += r.value;
  }
}
