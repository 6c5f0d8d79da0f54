// Shape: a raw `float* W` parameter written in the loop (float order matters; hashed bitwise).
#include "soundness.h"

static void epoch(rotor::Dataset<Rating>& ratings, rotor::DistArray<std::int64_t, 1>& bu, float* W) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    bu[r.user] += 1;
    W[r.item * 2] = W[r.item * 2] * 0.75f + r.value * static_cast<float>(r.user + 1);
    W[r.item * 2 + 1] += W[r.item * 2] * 0.5f;
  }
}

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 1> bu({37});
  std::vector<float> W(29 * 2, 0.5f);
  for (int it = 0; it < 3; ++it) {
    epoch(ratings, bu, W.data());
  }
  snd::Hash h;
  h << bu << W;
  h.print();
  return 0;
}
