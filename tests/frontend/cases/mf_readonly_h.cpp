#include "common.h"

void fit_users(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 2>& W,
               const rotor::DistArray<float, 2>& H, float lr) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    auto w = W.row(r.user);
    auto h = H.row(r.item);
    float e = r.value - w.dot(h);
    w += lr * e * h;
  }
}
