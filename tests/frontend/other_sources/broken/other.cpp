#include "helper.h"

// Does not parse with loop.cpp's flags (NUDGE_SCALE is defined only where this file is built):
// it might hold the definition the program links, so the loop stays serial.
void nudge(rotor::DistArray<float, 2>& A, int row, float g) {
  A(row, 0) += g * NUDGE_SCALE;
}
