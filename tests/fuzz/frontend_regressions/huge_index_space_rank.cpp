// Found by rotor-frontend-fuzz: a rank of 2^31-1 made the frontend build a model that large (hang).
#include "common.h"

void fill(rotor::IndexSpace<0x7fffffff>& grid, rotor::DistArray<double, 2>& A, double scale) {
#pragma rotor parallel_for
  for (auto [i, j] : grid) {
    A(i, j) = scale * static_cast<double>(i + j);
  }
}
