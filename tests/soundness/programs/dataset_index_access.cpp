// Shape: the iterated Dataset read and written by index inside the loop (`ratings[0].value += ...`).
#include "soundness.h"

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 1> bu({37});
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      bu[r.user] = (bu[r.user] * 3 + static_cast<std::int64_t>(ratings[0].value)) % 1000003;
      ratings[0].value += static_cast<float>(r.item % 3);
    }
  }
  snd::Hash h;
  h << bu;
  h.records(ratings);
  h.print();
  return 0;
}
