#include "common.h"

void external_update(rotor::DistArray<float, 1>& bu, int user);

void ext(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 1>& bu) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    external_update(bu, r.user);
  }
}
