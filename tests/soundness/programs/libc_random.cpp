// Shape: POSIX `random()` (hidden global state) called through a helper with a visible body.
#include "soundness.h"

#include <cstdlib>

static int jitter(int x) { return static_cast<int>((random() + x) % 101); }

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 2> W({37, 2});
  srandom(11);
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      W(r.user, 0) = (W(r.user, 0) * 5 + jitter(r.item)) % 1000003;
      W(r.user, 1) += 1;
    }
  }
  snd::Hash h;
  h << W << random();
  h.print();
  return 0;
}
