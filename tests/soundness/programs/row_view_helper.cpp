// Shape: a helper returns a row view that the body writes; the row it picks is not the key passed in.
#include "soundness.h"

static auto row_for(rotor::DistArray<std::int64_t, 2>& W, int u) { return W.row(u % 3); }

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 2> W({37, 2});
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      auto w = row_for(W, r.user);
      w(0) = (w(0) * 3 + r.item + 1) % 1000003;
      w(1) += r.user;
    }
  }
  snd::Hash h;
  h << W;
  h.print();
  return 0;
}
