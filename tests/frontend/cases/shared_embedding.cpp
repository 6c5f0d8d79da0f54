#include "common.h"

void embed(rotor::Dataset<Rating>& pairs, rotor::DistArray<float, 2>& E, float lr) {
#pragma rotor parallel_for
  for (const Rating& r : pairs) {
    auto u = E.row(r.user);
    auto v = E.row(r.item);
    const float e = r.value - u.dot(v);
    u += lr * e * v;
    v += lr * e * u;
  }
}
