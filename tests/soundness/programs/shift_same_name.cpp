// Shape: loop-invariant offsets with the same name: a global `shift` in a helper vs the parameter `shift` in the body.
#include "soundness.h"

int shift = 5; // the helper's shift

static void bump(rotor::DistArray<std::int64_t, 1>& W, int u, int v) {
  W[u + shift] = (W[u + shift] * 3 + v + 1) % 1000003;
}

static void epoch(rotor::Dataset<Rating>& ratings, rotor::DistArray<std::int64_t, 1>& W, int shift) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    W[r.user + shift] += 1;
    bump(W, r.user, r.item);
  }
}

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 1> W({37 + 5});
  for (int it = 0; it < 3; ++it) {
    epoch(ratings, W, 0);
  }
  snd::Hash h;
  h << W << shift;
  h.print();
  return 0;
}
