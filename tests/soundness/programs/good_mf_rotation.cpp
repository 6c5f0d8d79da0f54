// Good shape: plain MF update through W.row(r.user) / H.row(r.item); must stay parallel (rotation).
#include "soundness.h"

constexpr int K = 4;
constexpr std::int64_t P = 1000003;

static std::int64_t epoch(rotor::Dataset<Rating>& ratings, rotor::DistArray<std::int64_t, 2>& W,
                          rotor::DistArray<std::int64_t, 2>& H) {
  std::int64_t loss = 0;
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    auto w = W.row(r.user);
    auto h = H.row(r.item);
    std::int64_t dot = 0;
    for (int k = 0; k < K; ++k) {
      dot = (dot + w(k) * h(k)) % P;
    }
    const std::int64_t e = (static_cast<std::int64_t>(r.value) * 7 + P - dot) % P;
    for (int k = 0; k < K; ++k) {
      const std::int64_t wk = w(k);
      w(k) = (wk * 3 + e * h(k)) % P;
      h(k) = (h(k) * 5 + e * wk + 1) % P;
    }
    loss += e;
  }
  return loss;
}

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 2> W({37, K});
  rotor::DistArray<std::int64_t, 2> H({29, K});
  W.fill(1);
  H.fill(2);
  std::int64_t loss = 0;
  for (int it = 0; it < 3; ++it) {
    loss = (loss * 31 + epoch(ratings, W, H)) % P;
  }
  snd::Hash h;
  h << W << H << loss;
  h.records(ratings);
  h.print();
  return 0;
}
