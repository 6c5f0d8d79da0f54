#include "common.h"

void on_gpu(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 2>& W,
            rotor::DistArray<float, 2>& H, float lr) {
#pragma rotor parallel_for device(gpu)
  for (const Rating& r : ratings) {
    auto w = W.row(r.user);
    auto h = H.row(r.item);
    const float e = r.value - w.dot(h);
    w += lr * e * h;
    h += lr * e * w;
  }
}
