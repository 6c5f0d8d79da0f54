#include "common.h"

static void spread(rotor::DistArray<float, 1>& a, int i, int depth) {
  a[i] += 1.0f;
  if (depth > 0) {
    spread(a, i, depth - 1);
  }
}

void rec(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 1>& bu) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    spread(bu, r.user, 2);
  }
}
