// Test-only (never a corpus program): a loop that Rotor parallelises and whose rotor build has a
// data race, to prove that the soundness corpus's ThreadSanitizer run fails on one
// (tests/soundness/README.md, "ThreadSanitizer"). rotor-cc analyses the file with Clang, which
// defines __clang__, so the analysis sees the plain MF body and plans it `rotation`; g++ compiles
// the rewritten file without __clang__, so every worker also increments `unhashed_hits`, an int
// shared by all workers, without synchronisation. The counter is not in the hash: the hashes of
// the rotor build and of the serial replay are equal, and only TSan's report fails the run.
#include "soundness.h"

constexpr int K = 4;
constexpr std::int64_t P = 1000003;
int unhashed_hits = 0; // written by every worker: the race TSan must report

static void epoch(rotor::Dataset<Rating>& ratings, rotor::DistArray<std::int64_t, 2>& W,
                  rotor::DistArray<std::int64_t, 2>& H) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    auto w = W.row(r.user);
    auto h = H.row(r.item);
    for (int k = 0; k < K; ++k) {
      const std::int64_t wk = w(k);
      w(k) = (wk * 3 + h(k) + static_cast<std::int64_t>(r.value)) % P;
      h(k) = (h(k) * 5 + wk + 1) % P;
    }
#ifndef __clang__ // hidden from rotor-cc's analysis (Clang), compiled by g++
    ++unhashed_hits;
#endif
  }
}

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 2> W({37, K});
  rotor::DistArray<std::int64_t, 2> H({29, K});
  W.fill(1);
  H.fill(2);
  for (int it = 0; it < 10; ++it) { // many steps: both workers surely run some cells
    epoch(ratings, W, H);
  }
  snd::Hash h;
  h << W << H;
  h.records(ratings);
  h.print();
  return 0;
}
