// Shape: a `+=` reduction read through a helper argument (`peek(total)`), so it is not a reduction.
#include "soundness.h"

static std::int64_t peek(const std::int64_t& t) { return t % 13; }

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 1> bu({37});
  std::int64_t total = 0;
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      bu[r.user] = (bu[r.user] * 3 + peek(total) + 1) % 1000003;
      total += r.item;
    }
  }
  snd::Hash h;
  h << bu << total;
  h.print();
  return 0;
}
