// Another Params than helper.h's (as in a directory holding two programs): its scale has the
// same signature, but its body means something else here, so it is not imported.
#include "../../cases/common.h"

struct Params {
  double a;
  int b;
};

float scale(const Params& p, float v) {
  return static_cast<float>(p.a * v + p.b);
}
