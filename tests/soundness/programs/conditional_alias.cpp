// Shape: a conditional alias `c ? W.row(u) : H.row(i)` written through; W(u, 1) and H(i, 1) are also touched.
#include "soundness.h"

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 2> W({37, 2});
  rotor::DistArray<std::int64_t, 2> H({29, 2});
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      const bool c = (r.user + r.item) % 2 == 0;
      auto x = c ? W.row(r.item) : H.row(r.user % 29);
      x(0) = (x(0) * 3 + r.user + 1) % 1000003;
      W(r.user, 1) += 1;
      H(r.item, 1) += 1;
    }
  }
  snd::Hash h;
  h << W << H;
  h.print();
  return 0;
}
