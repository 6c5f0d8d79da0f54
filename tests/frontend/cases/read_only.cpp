#include "common.h"

double score(rotor::Dataset<Rating>& ratings, const rotor::DistArray<float, 2>& W,
             const rotor::DistArray<float, 2>& H) {
  double se = 0;
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    const float e = r.value - W.row(r.user).dot(H.row(r.item));
    se += e * e;
  }
  return se;
}
