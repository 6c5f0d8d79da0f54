#include "common.h"

void pointers(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 2>& W) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    float* p = W.data() + r.user * W.cols();
    p[0] += r.value;
  }
}
