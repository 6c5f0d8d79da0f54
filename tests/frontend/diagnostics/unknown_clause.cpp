#include "../cases/common.h"

void f(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 1>& bu) {
#pragma rotor parallel_for schedule(dynamic)
  for (const Rating& r : ratings) {
    bu[r.user] += r.value;
  }
}
