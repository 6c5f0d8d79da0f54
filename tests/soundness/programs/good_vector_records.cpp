// Good shape: loops over a std::vector of tokens (the inspector), a range-for and an index loop
// through `auto& t = tokens[n]`, writing each token's topic and the doc/word counts; must stay
// parallel (rotation over doc, word). The serial replay cannot reorder a plain vector, so the
// updates commute (counts +-1, a topic from the token alone): a lost count or topic (an update
// a rank never receives, two workers on one row) still changes the hash.
#include "soundness.h"

constexpr int T = 8;

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  std::vector<Token> tokens = snd::tokens();
  rotor::DistArray<std::int32_t, 2> ndk({31, T});
  rotor::DistArray<std::int32_t, 2> nwk({41, T});
  for (const Token& t : tokens) {
    ndk(t.doc, t.topic) += 1;
    nwk(t.word, t.topic) += 1;
  }
  for (int it = 0; it < 2; ++it) {
#pragma rotor parallel_for
    for (Token& t : tokens) {
      ndk(t.doc, t.topic) -= 1;
      nwk(t.word, t.topic) -= 1;
      t.topic = (t.topic * 3 + t.word + it) % T;
      ndk(t.doc, t.topic) += 1;
      nwk(t.word, t.topic) += 1;
    }
#pragma rotor parallel_for
    for (std::size_t n = 0; n < tokens.size(); ++n) {
      auto& t = tokens[n];
      ndk(t.doc, t.topic) -= 1;
      nwk(t.word, t.topic) -= 1;
      t.topic = (t.topic + t.doc + 1) % T;
      ndk(t.doc, t.topic) += 1;
      nwk(t.word, t.topic) += 1;
    }
  }
  snd::Hash h;
  h << ndk << nwk << tokens;
  h.print();
  return 0;
}
