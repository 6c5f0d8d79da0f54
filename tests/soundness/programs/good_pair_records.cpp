// Good shape (funk-svd stores its ratings as std::vector<std::pair<std::pair<int, int>, double>>):
// loops over a vector of nested pairs, keys read as `.first.first` (user) and `.first.second`
// (item), and over a vector of records with a nested key struct (`r.key.user`). They write the
// non-key value (shared between ranks member by member for pairs) and per-user / per-item counts,
// so they must stay parallel (one_d, rotation). The serial replay cannot reorder a plain vector,
// so the updates commute (integer counts, a value from the record alone).
#include "soundness.h"

#include <utility>

using Entry = std::pair<std::pair<int, int>, float>;
struct Key {
  std::int32_t user;
  std::int32_t item;
};
struct Keyed {
  Key key;
  float value;
};

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  std::vector<Entry> entries;
  std::vector<Keyed> keyed;
  for (const Rating& r : snd::ratings()) {
    entries.push_back({{r.user, r.item}, r.value});
    keyed.push_back({{r.item % 37, r.user % 29}, r.value});
  }
  std::vector<std::int64_t> per_user(37), per_item(29);
  for (int epoch = 0; epoch < 2; ++epoch) {
#pragma rotor parallel_for
    for (Entry& e : entries) {
      per_user[e.first.first] += static_cast<std::int64_t>(e.second);
      e.second = static_cast<float>((e.first.first * 3 + e.first.second + epoch) % 5 + 1);
    }
#pragma rotor parallel_for
    for (std::size_t j = 0; j < entries.size(); ++j) {
      per_user[entries[j].first.first] += entries[j].first.second;
      per_item[entries[j].first.second] += static_cast<std::int64_t>(entries[j].second) * 3;
    }
#pragma rotor parallel_for
    for (Keyed& k : keyed) {
      per_user[k.key.user] += static_cast<std::int64_t>(k.value) + k.key.item;
      per_item[k.key.item] += 1;
      k.value = static_cast<float>((k.key.user + epoch) % 4 + 1);
    }
  }
  snd::Hash h;
  for (const Entry& e : entries) {
    h << e.first.first << e.first.second << e.second;
  }
  h << keyed << per_user << per_item;
  h.print();
  return 0;
}
