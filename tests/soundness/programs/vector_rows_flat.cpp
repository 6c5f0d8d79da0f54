// Good shape: plain std::vector tables used as rows `v[key * k + j]` (parameters, a member
// through `this` with a member stride, a global, a lambda's capture, a helper's reference
// parameter); each loop must be parallel (rotor-cc adopts the vectors' memory as DistArray views).
#include "soundness.h"

constexpr std::int64_t P = 1000003;
constexpr int kBiasWidth = 2;

std::vector<std::int64_t> g_bias(37 * kBiasWidth, 1); // a global: user rows of 2

static std::int64_t epoch(rotor::Dataset<Rating>& ratings, std::vector<std::int64_t>& W,
                          std::vector<std::int64_t>& H, int k) {
  std::int64_t loss = 0;
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    std::int64_t dot = 0;
    for (int j = 0; j < k; ++j) {
      dot = (dot + W[r.user * k + j] * H[r.item * k + j]) % P;
    }
    const std::int64_t e = (static_cast<std::int64_t>(r.value) * 7 + P - dot) % P;
    for (int j = 0; j < k; ++j) {
      const std::int64_t wj = W[r.user * k + j];
      W[r.user * k + j] = (wj * 3 + e * H[r.item * k + j]) % P;
      H[r.item * k + j] = (H[r.item * k + j] * 5 + e * wj + 1) % P;
    }
    g_bias[r.user * kBiasWidth + 1] = (g_bias[r.user * kBiasWidth + 1] * 11 + e) % P;
    loss += e;
  }
  return loss;
}

struct ItemModel {
  std::vector<std::int64_t> rows;
  int width = 3;

  void sweep(rotor::Dataset<Rating>& ratings) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      for (int j = 0; j < width; ++j) {
        rows[r.item * width + j] = (rows[r.item * width + j] * 13 + r.user + j) % P;
      }
    }
  }
};

static void bump_row(std::vector<std::int64_t>& table, int row, int width, std::int64_t v) {
  for (int j = 0; j < width; ++j) {
    table[row * width + j] = (table[row * width + j] * 17 + v + j) % P;
  }
}

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  const int k = 4;
  std::vector<std::int64_t> W(37 * k, 1);
  std::vector<std::int64_t> H(29 * k, 2);
  std::vector<std::int64_t> counts(37 * 5, 0);
  ItemModel model{std::vector<std::int64_t>(29 * 3, 1)};
  const int width = 5;
  auto count_users = [&]() {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      bump_row(counts, r.user, width, static_cast<std::int64_t>(r.value));
    }
  };
  std::int64_t loss = 0;
  for (int it = 0; it < 3; ++it) {
    loss = (loss * 31 + epoch(ratings, W, H, k)) % P;
    model.sweep(ratings);
    count_users();
  }
  snd::Hash h;
  h << W << H << g_bias << model.rows << counts << loss;
  h.records(ratings);
  h.print();
  return 0;
}
