// Good shape: aliases (const int u = r.user, auto w = W.row(u), auto& M = H, int64& b = B(i, 0)); must stay parallel.
#include "soundness.h"

constexpr std::int64_t P = 1000003;

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 2> W({37, 3});
  rotor::DistArray<std::int64_t, 2> H({29, 3});
  rotor::DistArray<std::int64_t, 2> B({29, 1});
  W.fill(2);
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      const int u = r.user;
      const int i = r.item;
      auto w = W.row(u);
      auto& M = H;
      std::int64_t& b = B(i, 0);
      for (int k = 0; k < 3; ++k) {
        w(k) = (w(k) * 3 + M(i, k) + b) % P;
        M(i, k) = (M(i, k) * 5 + w(k) + k) % P;
      }
      b = (b + w(0)) % P;
    }
  }
  snd::Hash h;
  h << W << H << B;
  h.print();
  return 0;
}
