#include "common.h"

int last_user(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 1>& bu) {
  int last = -1;
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    bu[r.user] += r.value;
    last = r.user;
  }
  return last;
}
