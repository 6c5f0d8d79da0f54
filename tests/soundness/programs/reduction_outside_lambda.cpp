// Shape: a lambda defined outside the loop `+=` the reduction variable that the body also `+=`.
#include "soundness.h"

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 1> bu({37});
  std::int64_t total = 0;
  auto add = [&total](std::int64_t v) { total += v; };
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      bu[r.user] = (bu[r.user] * 3 + r.item) % 1000003;
      total += r.item;
      add(bu[r.user] % 101);
    }
  }
  snd::Hash h;
  h << bu << total;
  h.print();
  return 0;
}
