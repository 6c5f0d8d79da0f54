#include "common.h"

// Raw pointer tables (docs/design/containers.md, "Pointer tables"): a GibbsLDA++-style `int**`
// count table with rows allocated separately, a Funk-SVD-style flat `float*` factor table, a
// `double*` bias (rows of one element); the extent of each is bounded by accesses made in every
// iteration. Then a table whose only write is under a condition, which stays serial. (A pointer
// table the loop only reads is a read through an outside pointer: it blocks a loop that writes.)
struct Model {
  float* user_factors = nullptr; // users x K, one allocation

  void epoch(rotor::Dataset<Rating>& ratings, int** nw, double* item_bias, int K) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      float dot = 0.0f;
      for (int k = 0; k < K; ++k) {
        dot += user_factors[r.user * K + k] * static_cast<float>(nw[r.item][k]);
        user_factors[r.user * K + k] *= 0.99f;
        nw[r.item][k] += 1;
      }
      item_bias[r.item] += 0.01 * (r.value - dot - item_bias[r.item]);
    }
  }
};

void conditional(rotor::Dataset<Rating>& ratings, double* user_bias) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    if (r.value > 3.0f) {
      user_bias[r.user] += 1.0;
    }
  }
}
