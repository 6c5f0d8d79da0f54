#include "../cases/common.h"

void f(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 1>& bu) {
#pragma rotor paralel_for
  for (const Rating& r : ratings) {
    bu[r.user] += r.value;
  }
}
