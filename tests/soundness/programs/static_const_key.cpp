// Shape: `static const int u = r.user;` in the body: initialized once, so every record writes W[first user].
#include "soundness.h"

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 1> W({37});
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      static const int u = r.user;
      W[u] = (W[u] * 3 + r.item + 1) % 1000003;
    }
  }
  snd::Hash h;
  h << W;
  h.print();
  return 0;
}
