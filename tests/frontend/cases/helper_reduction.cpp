#include "common.h"

static void add_error(double& total, float e) { total += e * e; }

double rmse_sum(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 1>& bu) {
  double total = 0;
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    add_error(total, r.value - bu[r.user]);
  }
  return total;
}
