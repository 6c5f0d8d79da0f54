// Good shape: counters updated by ++ / -- (as by += 1 / -= 1) are sum reductions, the loop stays
// parallel (one_d by user); a counter whose updated value the body uses (`idx = (seen += 1)`)
// would read a worker's partial sum, so that loop must stay serial.
#include "soundness.h"

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 1> W({37});
  std::int64_t count = 0;
  std::int64_t down = 0;
  std::int64_t seen = 0;
  for (int it = 0; it < 2; ++it) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      ++count;
      down--;
      W(r.user) = (W(r.user) * 3 + r.item) % 1000003;
    }
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      const std::int64_t idx = (seen += 1);
      W(r.user) = (W(r.user) + idx * r.item) % 1000003;
    }
  }
  snd::Hash h;
  h << W << count << down << seen;
  h.records(ratings);
  h.print();
  return 0;
}
