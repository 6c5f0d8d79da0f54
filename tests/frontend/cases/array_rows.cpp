#include "common.h"

#include <array>
#include <vector>

// Plain containers indexed by a key directly (rows of one element) and std::array tables.
std::array<float, 64> g_item_bias{};

struct Biases {
  std::array<double, 3 * 37> user_rows{}; // 37 users, rows of 3

  void fit(rotor::Dataset<Rating>& ratings, std::vector<float>& user_bias) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      user_bias[r.user] += 0.1f * (r.value - user_bias[r.user]);
      for (int j = 0; j < 3; ++j) {
        user_rows[r.user * 3 + j] += r.value * j;
      }
    }
  }
};

void items(rotor::Dataset<Rating>& ratings) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    g_item_bias[r.item] -= 0.01f * g_item_bias[r.item] * r.value;
  }
}

void modulo(rotor::Dataset<Rating>& ratings, std::array<float, 8>& buckets) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    buckets[r.user % 8] += r.value; // any two users may share a bucket: serial
  }
}
