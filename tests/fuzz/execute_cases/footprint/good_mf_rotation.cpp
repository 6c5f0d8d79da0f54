// Test input of rotor-frontend-fuzz --execute (tests/fuzz/README.md), not a corpus program: the
// corpus program good_mf_rotation.cpp (built with its commands, hence the name) plus a write the
// analysis cannot see, to a row of W another worker's block holds (the next user's). rotor-cc
// analyses with Clang, which defines __clang__, so it plans the plain MF body `rotation`; g++
// compiles the hidden write too. The oracle's rotor build checks every DistArray access against
// the worker's block (ROTOR_CHECK_ACCESS): the write stops it with "access check failed", inside
// W's shape, so the execution oracle must report `outside_footprint`
// (fuzz.frontend.execute_oracle).
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
#ifndef __clang__
    W((r.user + 1) % 37, 0) += 1;
#endif
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
