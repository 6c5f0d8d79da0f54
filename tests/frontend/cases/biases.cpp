#include "common.h"

void biases(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 1>& bu,
            rotor::DistArray<float, 1>& bi, float mu, float lr) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    float e = r.value - mu - bu[r.user] - bi[r.item];
    bu[r.user] += lr * e;
    bi[r.item] += lr * e;
  }
}
