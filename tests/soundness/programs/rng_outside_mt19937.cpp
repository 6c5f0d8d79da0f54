// Shape: calls on objects declared outside the loop: `rng()` on an outside std::mt19937 and a distribution.
#include "soundness.h"

#include <random>

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 1> bu({37});
  std::mt19937 rng(42);
  std::uniform_int_distribution<int> coin(0, 999);
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      bu[r.user] = (bu[r.user] * 3 + static_cast<std::int64_t>(rng() % 1000) + coin(rng)) % 1000003;
    }
  }
  snd::Hash h;
  h << bu << rng();
  h.print();
  return 0;
}
