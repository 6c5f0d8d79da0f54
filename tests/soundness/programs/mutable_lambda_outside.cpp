// Shape: a `mutable` lambda with an init capture, declared outside the loop and called in it.
#include "soundness.h"

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 1> bu({37});
  auto next = [n = std::int64_t{0}](int salt) mutable {
    n = (n * 7 + salt + 1) % 1000003;
    return n;
  };
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      bu[r.user] = (bu[r.user] * 3 + next(r.item)) % 1000003;
    }
  }
  snd::Hash h;
  h << bu << next(0);
  h.print();
  return 0;
}
