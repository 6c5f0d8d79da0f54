#include "../cases/common.h"

#include <vector>

void f(std::vector<Rating>& ratings, rotor::DistArray<float, 1>& bu) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    bu[r.user] += r.value;
  }
}
