// Shape (finding F3): the loop's only access to a member std::vector is in a member function it
// calls (`bump(r.user, r.item)` writes `counts[u * 2 + j]`); the call itself is no write to the
// object, the helper's accesses are analysed with its arguments bound. Rotor may plan it
// parallel (partitioned by user) only if every rank's copy of `counts` ends up as a serial run's.
#include "soundness.h"

constexpr std::int64_t P = 1000003;

class Counter {
public:
  std::vector<std::int64_t> counts = std::vector<std::int64_t>(37 * 2, 1);

  void bump(int u, int i) {
    counts[u * 2] = (counts[u * 2] * 3 + i) % P;
    counts[u * 2 + 1] = (counts[u * 2 + 1] * 5 + counts[u * 2]) % P;
  }
  void epoch(rotor::Dataset<Rating>& ratings) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      bump(r.user, r.item);
    }
  }
};

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  Counter c;
  for (int it = 0; it < 3; ++it) {
    c.epoch(ratings);
  }
  snd::Hash h;
  h << c.counts;
  h.print();
  return 0;
}
