#include "common.h"

void skew(rotor::IndexSpace<2>& grid, rotor::DistArray<double, 2>& A) {
#pragma rotor parallel_for ordered
  for (auto [i, j] : grid) {
    if (i > 0 && j > 0 && j + 1 < A.extent(1)) {
      A(i, j) = 0.5 * (A(i - 1, j) + A(i - 1, j + 1)) + A(i, j - 1);
    }
  }
}
