// Shape: a helper takes the record by non-const reference and changes r.user; W(r.user) is then written.
#include "soundness.h"

constexpr std::int64_t P = 1000003;

static void remap(Rating& r) { r.user = (r.user * 5 + r.item) % 37; }

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 1> W({37});
  rotor::DistArray<std::int64_t, 1> H({29});
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (Rating& r : ratings) {
      remap(r);
      W[r.user] = (W[r.user] * 3 + H[r.item] + 1) % P;
      H[r.item] = (H[r.item] * 7 + r.user) % P;
    }
  }
  snd::Hash h;
  h << W << H;
  h.records(ratings);
  h.print();
  return 0;
}
