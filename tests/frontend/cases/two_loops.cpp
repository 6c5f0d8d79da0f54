#include "common.h"

void two(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 1>& bu,
         rotor::DistArray<float, 1>& bi) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    bu[r.user] += r.value;
  }
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    bi[r.item] += r.value * bu[r.user];
  }
}
