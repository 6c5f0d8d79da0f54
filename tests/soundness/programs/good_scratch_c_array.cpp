// Good shape: a per-iteration scratch C array `double g[4]` declared outside the loop (a gradient), filled whole before it is read by every rating: privatised per worker; must stay parallel (rotation).
#include "soundness.h"

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<double, 2> W({37, 4});
  rotor::DistArray<double, 2> H({29, 4});
  for (int k = 0; k < 4; ++k) {
    for (int u = 0; u < 37; ++u) {
      W(u, k) = 0.1 + 0.01 * u;
    }
    for (int i = 0; i < 29; ++i) {
      H(i, k) = 0.2 - 0.001 * i;
    }
  }
  double g[4];
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      for (int k = 0; k < 4; ++k) {
        g[k] = W(r.user, k) * 0.5 - H(r.item, k) * 0.25 + r.value * 0.01;
      }
      for (int k = 0; k < 4; ++k) {
        W(r.user, k) -= 0.01 * g[k] * H(r.item, k);
        H(r.item, k) -= 0.01 * g[3 - k] * W(r.user, k);
      }
    }
  }
  snd::Hash h;
  h << W << H;
  h.print();
  return 0;
}
