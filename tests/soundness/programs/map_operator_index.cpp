// Shape: `std::map::operator[]` on a map declared outside (inserts and writes).
#include "soundness.h"

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 1> bu({37});
  std::map<int, std::int64_t> by_item;
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      bu[r.user] += 1;
      by_item[r.item] = (by_item[r.item] * 3 + r.user + 1) % 1000003;
    }
  }
  snd::Hash h;
  h << bu << by_item;
  h.print();
  return 0;
}
