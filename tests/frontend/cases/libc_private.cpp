#include "common.h"

#include <cstdlib>

// private(random): libc's generator per worker (GibbsLDA++ samples topics with random()). The
// calls in the helper and in the body are rewritten to ::rotor::codegen::worker_random(); the
// second loop, without the clause, stays serial.
static int sample(int K) { return static_cast<int>(random() % K); }

void gibbs(rotor::Dataset<Token>& tokens, rotor::DistArray<int, 2>& nw, int K) {
#pragma rotor parallel_for private(random)
  for (Token& t : tokens) {
    nw(t.word, t.topic) -= 1;
    t.topic = sample(K);
    nw(t.word, t.topic) += 1;
  }
}

void unmarked(rotor::Dataset<Token>& tokens, rotor::DistArray<int, 2>& nw, int K) {
#pragma rotor parallel_for
  for (Token& t : tokens) {
    nw(t.word, 0) += sample(K);
  }
}
