#include "common.h"

float largest_error(rotor::Dataset<Rating>& ratings, const rotor::DistArray<float, 1>& bu) {
  rotor::Accumulator<float, rotor::Max> worst;
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    worst += r.value - bu[r.user];
  }
  return worst.value();
}
