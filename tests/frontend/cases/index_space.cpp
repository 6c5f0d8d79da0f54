#include "common.h"

void fill(rotor::IndexSpace<2>& grid, rotor::DistArray<double, 2>& A, double scale) {
#pragma rotor parallel_for
  for (auto [i, j] : grid) {
    A(i, j) = scale * static_cast<double>(i + j);
  }
}
