// Shape: `Accumulator::value()` and `reset()` called inside the loop (the running value is order-dependent).
#include "soundness.h"

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 1> bu({37});
  rotor::Accumulator<std::int64_t, rotor::Sum> acc;
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      acc += r.item + 1;
      bu[r.user] = (bu[r.user] * 3 + acc.value() % 17) % 1000003;
      if (acc.value() > 200) {
        acc.reset();
      }
    }
  }
  snd::Hash h;
  h << bu << acc.value();
  h.print();
  return 0;
}
