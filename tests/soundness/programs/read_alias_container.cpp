// Trap: a container the loop only reads, through a const reference parameter, that is the written
// container itself (`step(ratings, W, W)`). Read-only containers are not bound (their reads are
// outside reads), so no runtime check sees the shared memory: the analysis must keep the loop
// serial wherever a read container and a written one of the same element type may be one (either
// is a reference). Parallel by user, worker 1 would read rows worker 0 is writing.
#include "soundness.h"

constexpr std::int64_t P = 1000003;

static void step(rotor::Dataset<Rating>& ratings, std::vector<std::int64_t>& W,
                 const std::vector<std::int64_t>& X) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    W[r.user] = (W[r.user] * 3 + X[r.item] + r.item) % P;
  }
}

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  std::vector<std::int64_t> W(64, 1);
  for (int it = 0; it < 3; ++it) {
    step(ratings, W, W);
  }
  snd::Hash h;
  h << W;
  h.records(ratings);
  h.print();
  return 0;
}
