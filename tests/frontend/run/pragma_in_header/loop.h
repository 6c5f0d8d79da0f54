// A user header with an annotated loop (test input of frontend.driver.pragma_in_header): rotor-cc
// rewrites only the file it compiles, so it must warn that this pragma is ignored.
#pragma once
#include <rotor/rotor.h>

struct Rating {
  int user;
  int item;
  float value;
};

inline void scale(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 1>& bias) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    bias(r.user) += 0.5f * r.value;
  }
}
