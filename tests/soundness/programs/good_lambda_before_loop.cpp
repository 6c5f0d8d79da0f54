// Good shape: a lambda defined before the loop (visible body) updates W(u, .) and H[i]; must stay parallel (rotation).
#include "soundness.h"

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 2> W({37, 2});
  rotor::DistArray<std::int64_t, 1> H({29});
  auto step = [&](int u, int i, std::int64_t v) {
    W(u, 0) = (W(u, 0) * 3 + H[i] + v) % 1000003;
    H[i] = (H[i] * 5 + W(u, 0)) % 1000003;
    W(u, 1) += 1;
  };
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      step(r.user, r.item, static_cast<std::int64_t>(r.value));
    }
  }
  snd::Hash h;
  h << W << H;
  h.print();
  return 0;
}
