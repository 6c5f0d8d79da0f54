// Compile-and-run test of a loop whose helpers are defined in another source of the program
// (split_program_helpers.cpp): built serially and with rotor-cc, file by file; both builds must
// print the same lines. The updates are integer sums, so any serial order gives one result.
#include "split_program.h"

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  const int users = 37, items = 29, columns = 4;
  std::vector<Rating> ratings;
  for (int i = 0; i < 5000; ++i) {
    ratings.push_back({(i * 7) % users, (i * 11) % items, i % 9});
  }
  rotor::DistArray<std::int64_t, 2> by_user({users, columns});
  rotor::DistArray<std::int64_t, 2> by_item({items, columns});
  for (int sweep = 0; sweep < 3; ++sweep) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      const std::int64_t w = split_weight(r);
      split_add_to_row(by_user, r.user, w);
      split_add_to_row(by_item, r.item, w + sweep);
    }
  }
  std::int64_t user_sum = 0, item_sum = 0;
  for (int u = 0; u < users; ++u) {
    for (int k = 0; k < columns; ++k) {
      user_sum += by_user(u, k) * (u + 1);
    }
  }
  for (int i = 0; i < items; ++i) {
    for (int k = 0; k < columns; ++k) {
      item_sum += by_item(i, k) * (i + 1);
    }
  }
  std::printf("user %lld item %lld\n", static_cast<long long>(user_sum),
              static_cast<long long>(item_sum));
  return 0;
}
