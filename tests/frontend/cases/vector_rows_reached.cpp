#include "common.h"

#include <vector>

// Row vectors reached as a member through `this`, as a global, as a lambda's capture and through
// a helper's reference parameter: each is analysed like a DistArray.
std::vector<double> g_bias;
constexpr int kWidth = 4;

void add_row(std::vector<float>& table, int row, int width, float v) {
  for (int j = 0; j < width; ++j) {
    table[row * width + j] += v;
  }
}

struct Model {
  std::vector<float> user_rows;
  int k = 8;

  void train(rotor::Dataset<Rating>& ratings) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      for (int j = 0; j < k; ++j) {
        user_rows[r.user * k + j] += r.value;
      }
      g_bias[r.user * kWidth + 1] += r.value;
    }
  }
};

void captured(rotor::Dataset<Rating>& ratings, std::vector<float>& items, int width) {
  auto epoch = [&]() {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      add_row(items, r.item, width, r.value);
    }
  };
  epoch();
}
