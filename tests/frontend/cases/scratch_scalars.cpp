// Funk-SVD as a serial program writes it (issue 16): the temporaries `u_id`, `i_id`, `error` and
// `correction` are declared before the loop and assigned before any read in every iteration, so
// each worker gets its own copy, and `u_id = r.user` keys `p(u_id, k)` as `const int u = r.user`
// would. In the second loop `last` keeps a value from record to record (assigned under a
// condition, then read): it stays a write to an outside variable, and the loop stays serial.
#include "common.h"

double train(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 2>& p,
             rotor::DistArray<float, 2>& q, int factors) {
  int u_id, i_id;
  double error, correction;
  double rmse = 0;
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    u_id = r.user;
    i_id = r.item;
    error = r.value;
    for (int k = 0; k < factors; ++k) {
      error -= p(u_id, k) * q(i_id, k);
    }
    rmse += error * error;
    for (int k = 0; k < factors; ++k) {
      correction = 0.01 * error * q(i_id, k);
      q(i_id, k) += static_cast<float>(0.01 * error * p(u_id, k));
      p(u_id, k) += static_cast<float>(correction);
    }
  }
  int last = 0;
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    if (r.value > 3) {
      last = r.user;
    }
    p(last, 0) += 0.001f * r.value;
  }
  return rmse;
}
