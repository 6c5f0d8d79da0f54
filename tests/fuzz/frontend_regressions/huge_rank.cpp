// Found by rotor-frontend-fuzz: a rank of 2^31-1 made the frontend build a model that large (hang).
#include "common.h"

void inner(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 2>& W,
           rotor::DistArray<float, 0x7fffffff>& H, int k, float lr) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    float dot = 0;
    for (int f = 0; f < k; ++f) {
      dot += W(r.user, f) * H(r.item, f);
    }
    const float e = r.value - dot;
    for (int f = 0; f < k; ++f) {
      W(r.user, f) += lr * e * H(r.item, f);
    }
  }
}
