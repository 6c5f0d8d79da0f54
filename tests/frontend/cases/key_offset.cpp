#include "common.h"

void offsets(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 1>& bu, int shift) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    bu[r.user + shift] += bu[r.user + shift + 1] * r.value;
  }
}
