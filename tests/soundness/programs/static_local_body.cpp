// Shape: a static local in the loop body: a hidden counter shared by all iterations.
#include "soundness.h"

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 1> bu({37});
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      static std::int64_t calls = 0;
      calls = (calls * 7 + r.item + 1) % 1000003;
      bu[r.user] = (bu[r.user] * 3 + calls) % 1000003;
    }
  }
  snd::Hash h;
  h << bu;
  h.print();
  return 0;
}
