#include "helper.h"

int calls = 0;

void nudge(rotor::DistArray<float, 2>& A, int row, float g) {
  A(row, 0) += g;
  ++calls;
}
