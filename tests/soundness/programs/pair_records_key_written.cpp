// Must stay serial: a loop over std::pair records that writes `e.first.second` (so the item is
// no key) and reads and writes `per_item[e.first.second]` after changing it: two records of one
// user may then touch the same per_item row in any order. The order changes the result (the
// item written depends on the row's running count), so only the index order is right.
#include "soundness.h"

#include <utility>

using Entry = std::pair<std::pair<int, int>, float>;

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  std::vector<Entry> entries;
  for (const Rating& r : snd::ratings()) {
    entries.push_back({{r.user, r.item}, r.value});
  }
  std::vector<std::int64_t> per_user(37), per_item(29);
#pragma rotor parallel_for
  for (Entry& e : entries) {
    e.first.second = static_cast<int>((per_item[e.first.second] + e.first.first) % 29);
    per_item[e.first.second] += 1;
    per_user[e.first.first] += e.first.second;
  }
  snd::Hash h;
  for (const Entry& e : entries) {
    h << e.first.first << e.first.second << e.second;
  }
  h << per_user << per_item;
  h.print();
  return 0;
}
