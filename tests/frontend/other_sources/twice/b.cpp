#include "helper.h"

// A second definition (another program in the same directory): which one is linked is unknown.
void nudge(rotor::DistArray<float, 2>& A, int row, float g) {
  A(0, row) += g;
}
