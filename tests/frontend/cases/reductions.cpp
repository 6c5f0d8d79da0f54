#include "common.h"

void stats(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 1>& bu) {
  double sum = 0;
  long count = 0;
  float neg = 0;
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    sum += r.value;
    count += 1;
    neg -= bu[r.user];
  }
  (void)sum; (void)count; (void)neg;
}
