// Shape: a global raw array written in the body (`counts[r.item] = ...`): an outside write, not a DistArray.
#include "soundness.h"

std::int64_t counts[29];

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 1> bu({37});
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      bu[r.user] += 1;
      counts[r.item] = (counts[r.item] * 3 + r.user + 1) % 1000003;
    }
  }
  snd::Hash h;
  h << bu << counts;
  h.print();
  return 0;
}
