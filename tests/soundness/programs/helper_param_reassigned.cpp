// Shape: a helper's int parameter (bound to r.user) is reassigned before it is used as a subscript.
#include "soundness.h"

constexpr std::int64_t P = 1000003;

static void bump(rotor::DistArray<std::int64_t, 1>& W, int u, int item) {
  u = (u * 3 + item) % 37;
  W[u] = (W[u] * 3 + item + 1) % P;
}

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 1> W({37});
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      bump(W, r.user, r.item);
    }
  }
  snd::Hash h;
  h << W;
  h.print();
  return 0;
}
