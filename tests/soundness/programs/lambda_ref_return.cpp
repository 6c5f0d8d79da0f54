// Shape: a lambda written inside the loop returns `W(0, 0)` by reference; the body writes through it.
#include "soundness.h"

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 2> W({37, 2});
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      auto cell = [&]() -> std::int64_t& { return W(0, 0); };
      cell() = (cell() * 3 + r.user + r.item) % 1000003;
      W(r.user, 1) += 1;
    }
  }
  snd::Hash h;
  h << W;
  h.print();
  return 0;
}
