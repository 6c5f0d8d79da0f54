#include "common.h"

void aliases(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 2>& W, float g) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    const int u = r.user;
    auto& M = W;
    float& first = M(u, 0);
    first += g * r.value;
  }
}
