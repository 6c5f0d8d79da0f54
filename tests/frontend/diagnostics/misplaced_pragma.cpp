#include "../cases/common.h"

void f(rotor::DistArray<float, 1>& a) {
#pragma rotor parallel_for
  a[0] = 1.0f;
}
