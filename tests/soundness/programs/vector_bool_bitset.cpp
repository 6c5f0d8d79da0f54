// Shape: writes to std::vector<bool> and std::bitset elements (proxy references) declared outside.
#include "soundness.h"

#include <bitset>

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 1> bu({37});
  std::vector<bool> seen(29, false);
  std::bitset<64> flags;
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      bu[r.user] = (bu[r.user] * 3 + (seen[r.item] ? 1 : 2)) % 1000003;
      seen[r.item] = !seen[r.item];
      flags[(r.item + r.user) % 64].flip();
    }
  }
  snd::Hash h;
  h << bu << seen << flags.to_ullong();
  h.print();
  return 0;
}
