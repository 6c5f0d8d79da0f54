#include "../cases/common.h"

int f(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 1>& bu) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    if (r.value < 0) {
      return 1;
    }
    bu[r.user] += r.value;
  }
  return 0;
}
