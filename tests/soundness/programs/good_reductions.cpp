// Good shape: direct reductions (+=, -=, Accumulator Max) next to a one_d array; must stay parallel.
#include "soundness.h"

constexpr std::int64_t P = 1000003;

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 1> bu({37});
  std::int64_t total = 0;
  std::int64_t down = 0;
  rotor::Accumulator<std::int64_t, rotor::Max> biggest;
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      bu[r.user] = (bu[r.user] * 3 + r.item + it) % P;
      total += bu[r.user];
      down -= r.item;
      biggest += bu[r.user] * 2 + r.user;
    }
  }
  snd::Hash h;
  h << bu << total << down << biggest.value();
  h.print();
  return 0;
}
