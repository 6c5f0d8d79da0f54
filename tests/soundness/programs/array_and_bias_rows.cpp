// Good shape: a std::vector of biases indexed by the key itself (`bias[r.user]`, rows of one
// element), a std::array member used as rows of 3 and a global std::array indexed by item; each
// loop must be parallel (rotor-cc adopts the containers' memory as DistArray views). The last
// loop's subscript `r.user % 4` is a trap: any two users may share a bucket, so it stays serial.
#include "soundness.h"

#include <array>

constexpr std::int64_t P = 1000003;

std::array<std::int64_t, 29> g_item_count{}; // one per item

struct UserTable {
  std::array<std::int64_t, 37 * 3> rows{}; // 37 users, rows of 3

  void sweep(rotor::Dataset<Rating>& ratings, std::vector<std::int64_t>& bias) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      bias[r.user] = (bias[r.user] * 7 + static_cast<std::int64_t>(r.value)) % P;
      for (int j = 0; j < 3; ++j) {
        rows[r.user * 3 + j] = (rows[r.user * 3 + j] * 5 + bias[r.user] + j) % P;
      }
    }
  }
};

static void count_items(rotor::Dataset<Rating>& ratings) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    g_item_count[r.item] = (g_item_count[r.item] * 3 + r.user + 1) % P;
  }
}

static void buckets(rotor::Dataset<Rating>& ratings, std::array<std::int64_t, 4>& bucket) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    bucket[r.user % 4] = (bucket[r.user % 4] * 11 + r.item) % P;
  }
}

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  UserTable table;
  std::vector<std::int64_t> bias(37, 1);
  std::array<std::int64_t, 4> bucket{1, 2, 3, 4};
  for (int it = 0; it < 3; ++it) {
    table.sweep(ratings, bias);
    count_items(ratings);
    buckets(ratings, bucket);
  }
  snd::Hash h;
  h << table.rows << bias << g_item_count << bucket;
  h.records(ratings);
  h.print();
  return 0;
}
