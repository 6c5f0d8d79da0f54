// Shape: an `int16_t` local holding a key: users k and 65536 + k truncate to the same subscript.
#include "soundness.h"

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  std::vector<Rating> v = snd::ratings();
  for (std::size_t i = 0; i < v.size(); ++i) {
    v[i].user += (i % 2) * 65536;
  }
  rotor::Dataset<Rating> ratings(v);
  rotor::DistArray<std::int64_t, 1> W({65536 + 37});
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      const std::int16_t u = static_cast<std::int16_t>(r.user);
      W[u] = (W[u] * 3 + r.item + 1) % 1000003;
    }
  }
  snd::Hash h;
  h << W;
  h.print();
  return 0;
}
