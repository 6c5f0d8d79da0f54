#include "common.h"

#include <vector>

// A std::vector used as rows of k floats (row-major flat), written through `key * k + j`.
void factors(rotor::Dataset<Rating>& ratings, std::vector<float>& W, std::vector<float>& H,
             int k) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    float e = r.value;
    for (int j = 0; j < k; ++j) {
      e -= W[r.user * k + j] * H[r.item * k + j];
    }
    for (int j = 0; j < k; ++j) {
      W[r.user * k + j] += 0.01f * e * H[r.item * k + j];
      H[r.item * k + j] += 0.01f * e * W[r.user * k + j];
    }
  }
}
