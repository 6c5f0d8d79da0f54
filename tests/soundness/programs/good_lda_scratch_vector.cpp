// Good shape: an LDA sampler's probability vector `std::vector<double> p(T)` declared outside the loop, filled whole by every token before it is read, then summed and searched: privatised per worker; must stay parallel (rotation).
#include "soundness.h"

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  const int T = 8;
  rotor::Dataset<Token> tokens(snd::tokens());
  rotor::DistArray<std::int32_t, 2> ndk({31, T});
  rotor::DistArray<std::int32_t, 2> nwk({41, T});
  for (const Token& t : tokens) {
    ndk(t.doc, t.topic) += 1;
    nwk(t.word, t.topic) += 1;
  }
  std::vector<double> p(T);
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (Token& t : tokens) {
      ndk(t.doc, t.topic) -= 1;
      nwk(t.word, t.topic) -= 1;
      for (int k = 0; k < T; ++k) {
        p[k] = (ndk(t.doc, k) + 0.5) * (nwk(t.word, k) + 0.1);
      }
      for (int k = 1; k < T; ++k) {
        p[k] += p[k - 1];
      }
      const double u = ((t.doc * 7 + t.word * 13 + it * 5) % 101) / 101.0 * p[T - 1];
      int z = 0;
      while (z < T - 1 && p[z] < u) {
        ++z;
      }
      ndk(t.doc, z) += 1;
      nwk(t.word, z) += 1;
      t.topic = z;
    }
  }
  snd::Hash h;
  h << ndk << nwk;
  h.records(tokens);
  h.print();
  return 0;
}
