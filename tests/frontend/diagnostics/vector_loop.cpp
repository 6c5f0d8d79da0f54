#include "../cases/common.h"

#include <vector>

void f(std::vector<int>& users, rotor::DistArray<float, 1>& bu) {
#pragma rotor parallel_for
  for (int u : users) {
    bu[u] += 1.0f;
  }
}
