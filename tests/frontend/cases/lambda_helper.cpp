#include "common.h"

void with_lambda(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 1>& bu, float lr) {
  auto step = [&](rotor::DistArray<float, 1>& b, int u, float v) { b[u] += lr * v; };
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    step(bu, r.user, r.value);
  }
}
