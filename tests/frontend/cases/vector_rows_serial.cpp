#include "common.h"

#include <vector>

// Row-vector subscripts Rotor cannot bound, and uses other than by subscript: each loop stays
// serial and says why.
void unbounded_column(rotor::Dataset<Rating>& ratings, std::vector<float>& W, int k) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    for (int j = 0; j <= k; ++j) { // j reaches k: the next user's first element
      W[r.user * k + j] += r.value;
    }
  }
}

void column_from_data(rotor::Dataset<Rating>& ratings, std::vector<float>& W, int k) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    W[r.user * k + r.item] += r.value; // r.item is not below k
  }
}

void two_strides(rotor::Dataset<Rating>& ratings, std::vector<float>& W, int k, int m) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    W[r.user * k] += r.value;
    W[r.item * m] += r.value;
  }
}

void resized(rotor::Dataset<Rating>& ratings, std::vector<float>& W) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    W[r.user * 2 + 1] += r.value;
    W.push_back(r.value);
  }
}

void induction_changed(rotor::Dataset<Rating>& ratings, std::vector<float>& W, int k) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    for (int j = 0; j < k; ++j) {
      W[r.user * k + j] += r.value;
      j += r.item;
    }
  }
}
