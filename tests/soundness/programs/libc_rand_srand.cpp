// Shape: libc `rand()` (hidden global state) in the body, reseeded by `srand` before and inside the loop.
#include "soundness.h"

#include <cstdlib>

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 1> bu({37});
  std::srand(7);
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      bu[r.user] = (bu[r.user] * 3 + std::rand() % 1000 + r.item) % 1000003;
      if (r.item == 3) {
        std::srand(static_cast<unsigned>(r.user + it));
      }
    }
  }
  snd::Hash h;
  h << bu << std::rand();
  h.print();
  return 0;
}
