// Shape: a pointer taken into a DistArray before the loop (`int64* base = &W(0, 0)`), written inside.
#include "soundness.h"

constexpr int K = 3;
constexpr std::int64_t P = 1000003;

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 2> W({29, K});
  rotor::DistArray<std::int64_t, 1> U({37});
  std::int64_t* base = &W(0, 0);
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      U[r.user] = (U[r.user] * 7 + 1) % P;
      base[r.item * K] = (base[r.item * K] * 3 + r.user + U[r.user]) % P;
    }
  }
  snd::Hash h;
  h << W << U;
  h.print();
  return 0;
}
