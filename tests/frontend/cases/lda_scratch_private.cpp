// An LDA Gibbs sweep as a serial program writes it: a probability vector `p` declared outside the
// loop (privatised per worker: every token fills it whole before reading it) and a generator
// named in private(rng) (each worker draws its own stream: no longer a serial order).
#include "common.h"

#include <random>
#include <vector>

void sweep(rotor::Dataset<Token>& tokens, rotor::DistArray<int, 2>& ndk,
           rotor::DistArray<int, 2>& nwk, std::mt19937& seed_source) {
  const int K = 16;
  std::vector<double> p(K);
  std::mt19937 rng(seed_source());
#pragma rotor parallel_for private(rng)
  for (Token& t : tokens) {
    ndk(t.doc, t.topic) -= 1;
    nwk(t.word, t.topic) -= 1;
    for (int k = 0; k < K; ++k) {
      p[k] = (ndk(t.doc, k) + 0.1) * (nwk(t.word, k) + 0.01);
    }
    for (int k = 1; k < K; ++k) {
      p[k] += p[k - 1];
    }
    std::uniform_real_distribution<double> u(0.0, p[K - 1]);
    const double x = u(rng);
    int z = 0;
    while (z < K - 1 && p[z] < x) {
      ++z;
    }
    t.topic = z;
    ndk(t.doc, z) += 1;
    nwk(t.word, z) += 1;
  }
}
