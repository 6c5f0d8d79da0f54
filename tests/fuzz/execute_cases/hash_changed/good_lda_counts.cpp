// Test input of rotor-frontend-fuzz --execute (tests/fuzz/README.md): the corpus program
// good_lda_counts.cpp with the mutation that once gave a false 'differing' (the hash line hashes
// argv, an address each process has its own of). The oracle must not run it (oracle_lines_changed).
#include "soundness.h"

constexpr int T = 8;

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Token> tokens(snd::tokens());
  rotor::DistArray<std::int32_t, 2> ndk({31, T});
  rotor::DistArray<std::int32_t, 2> nwk({41, T});
  for (const Token& t : tokens) {
    ndk(t.doc, t.topic) += 1;
    nwk(t.word, t.topic) += 1;
  }
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (Token& t : tokens) {
      const int old = t.topic;
      ndk(t.doc, old) -= 1;
      nwk(t.word, old) -= 1;
      int best = 0;
      int score = -1;
      for (int k = 0; k < T; ++k) {
        const int s = ((ndk(t.doc, k) + 1) * (nwk(t.word, k) + 2) + k * t.doc) % 97;
        if (s > score) {
          score = s;
          best = k;
        }
      }
      ndk(t.doc, best) += 1;
      nwk(t.word, best) += 1;
      t.topic = best;
    }
  }
  snd::Hash h;
  h << ndk << argv;
  h.records(tokens);
  h.print();
  return 0;
}
