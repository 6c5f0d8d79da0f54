// Good shape: helpers with visible bodies taking DistArrays by reference and keys by value; must stay parallel.
#include "soundness.h"

constexpr std::int64_t P = 1000003;

static std::int64_t score(const rotor::DistArray<std::int64_t, 2>& W, int u,
                          const rotor::DistArray<std::int64_t, 1>& B, int i) {
  return (W(u, 0) * 7 + W(u, 1) + B[i]) % P;
}
static void update_row(rotor::DistArray<std::int64_t, 2>& W, int u, std::int64_t e) {
  for (int k = 0; k < 2; ++k) {
    W(u, k) = (W(u, k) * 3 + e + k) % P;
  }
}
static void push(rotor::DistArray<std::int64_t, 1>& B, int i, std::int64_t v) {
  B[i] = (B[i] * 5 + v) % P;
}

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 2> W({37, 2});
  rotor::DistArray<std::int64_t, 1> B({29});
  W.fill(1);
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      const std::int64_t e = score(W, r.user, B, r.item);
      update_row(W, r.user, e);
      push(B, r.item, e + r.user);
    }
  }
  snd::Hash h;
  h << W << B;
  h.print();
  return 0;
}
