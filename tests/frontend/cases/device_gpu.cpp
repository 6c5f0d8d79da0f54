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

// A deduced loop variable and a reduction: the device body names the record type through
// decltype of the range and the reduction's type through decltype of its name.
double loss_on_gpu(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 2>& W,
                   rotor::DistArray<float, 2>& H) {
  double loss = 0;
#pragma rotor parallel_for device(gpu)
  for (const auto& r : ratings) {
    const float e = r.value - W.row(r.user).dot(H.row(r.item));
    loss += e * e;
  }
  return loss;
}

// An array passed to a helper needs the DistArray itself: the device loop keeps the CPU body
// (generic parameters, by-reference capture) and runs on CPU workers.
void shrink(rotor::DistArray<float, 2>& A, std::int32_t row) {
  A.row(row) *= 0.5f;
}
void helper_on_gpu(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 2>& W) {
#pragma rotor parallel_for device(gpu)
  for (const Rating& r : ratings) {
    shrink(W, r.user);
  }
}
