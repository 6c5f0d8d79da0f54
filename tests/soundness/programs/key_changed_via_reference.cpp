// Shape: the key is changed through a reference and a pointer to the record (`int& u = r.user; u = ...`, `p->item = ...`).
#include "soundness.h"

constexpr std::int64_t P = 1000003;

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 1> W({37});
  rotor::DistArray<std::int64_t, 1> H({29});
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (Rating& r : ratings) {
      int& u = r.user;
      u = (u + 5) % 37;
      Rating* p = &r;
      p->item = (p->item * 3 + 1) % 29;
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
