// Good shape, found by the execution fuzzer (seed 1327: shift_same_name with the body's own
// access deleted): a helper's subscript offset is a global `shift` (5) while the loop's function
// has a parameter `shift` (0). rotor-cc writes the offset into the run_loop call at the loop,
// where `shift` finds the parameter: it must write `::shift` (the blocks of W must be the ones
// the body touches, W[user + 5]); the plan stays one_d by user. A member offset shadowed by a
// parameter of the loop's method (`this->base`) is the second loop.
#include "soundness.h"

int shift = 5; // the helper's shift

static void bump(rotor::DistArray<std::int64_t, 1>& W, int u, int v) {
  W[u + shift] = (W[u + shift] * 3 + v + 1) % 1000003;
}

static void epoch(rotor::Dataset<Rating>& ratings, rotor::DistArray<std::int64_t, 1>& W,
                  int shift) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    bump(W, r.user, r.item);
  }
  (void)shift;
}

struct Offsets {
  int base = 3;
  void add(rotor::DistArray<std::int64_t, 1>& V, int u, int v) {
    V[u + base] = (V[u + base] * 7 + v + 2) % 1000003;
  }
  void sweep(rotor::Dataset<Rating>& ratings, rotor::DistArray<std::int64_t, 1>& V, int base) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      add(V, r.user, r.item);
    }
    (void)base;
  }
};

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 1> W({37 + 5});
  rotor::DistArray<std::int64_t, 1> V({37 + 3});
  Offsets o;
  for (int it = 0; it < 3; ++it) {
    epoch(ratings, W, 0);
    o.sweep(ratings, V, 0);
  }
  snd::Hash h;
  h << W << V << shift;
  h.print();
  return 0;
}
