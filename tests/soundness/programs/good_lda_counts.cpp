// Good shape: LDA-like counts ndk(doc, z) / nwk(word, z) with the record's topic rewritten; must stay parallel (rotation).
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
  h << ndk << nwk;
  h.records(tokens);
  h.print();
  return 0;
}
