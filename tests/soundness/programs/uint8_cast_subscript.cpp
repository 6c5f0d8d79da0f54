// Shape: `W(static_cast<uint8_t>(r.user), 0)`: the cast wraps users 256.. onto rows 0.., so different users collide.
#include "soundness.h"

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings(3000, 300, 29));
  rotor::DistArray<std::int64_t, 2> W({300, 2});
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      W(static_cast<std::uint8_t>(r.user), 0) =
          (W(static_cast<std::uint8_t>(r.user), 0) * 3 + r.item + 1) % 1000003;
      W(r.user, 1) += 1;
    }
  }
  snd::Hash h;
  h << W;
  h.print();
  return 0;
}
