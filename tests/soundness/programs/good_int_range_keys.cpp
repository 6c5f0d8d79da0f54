// Good shape (issue 16: `W[user_of[m]]`): integer-range loops `for (int m = 0; m < M; ++m)`
// whose keys are the index and values of read-only index vectors at it (`user_of[m]`,
// `item_of[m]`); the inspector reads them before the loop. They must stay parallel (rotation
// over user_of[m], item_of[m]; one_d by m). The serial replay cannot reorder an integer range, so
// the updates commute (integer counts, an output per index): a lost count still changes the hash.
#include "soundness.h"

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  const std::vector<Rating> ratings = snd::ratings();
  std::vector<int> user_of, item_of;
  std::vector<std::int64_t> value_of;
  for (const Rating& r : ratings) {
    user_of.push_back(r.user);
    item_of.push_back(r.item);
    value_of.push_back(static_cast<std::int64_t>(r.value));
  }
  const int M = static_cast<int>(user_of.size());
  std::vector<std::int64_t> per_user(37), per_item(29), out(M);
  for (int epoch = 0; epoch < 2; ++epoch) {
#pragma rotor parallel_for
    for (int m = 0; m < M; ++m) {
      per_user[user_of[m]] += value_of[m] + item_of[m];
      per_item[item_of[m]] += value_of[m] * 3 + epoch;
    }
#pragma rotor parallel_for
    for (int m = 0; m < M; m++) {
      out[m] += user_of[m] * 7 + item_of[m] + epoch;
    }
  }
  snd::Hash h;
  h << per_user << per_item << out;
  h.print();
  return 0;
}
