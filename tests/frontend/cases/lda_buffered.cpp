#include "common.h"

void lda(rotor::Dataset<Token>& tokens, rotor::DistArray<std::int32_t, 2>& ndk,
         rotor::DistArray<std::int32_t, 2>& nkw, rotor::DistArray<std::int32_t, 1>& nk,
         int topics) {
#pragma rotor parallel_for buffered(nkw, nk)
  for (Token& t : tokens) {
    const int old = t.topic;
    ndk(t.doc, old) -= 1;
    nkw(old, t.word) -= 1;
    nk[old] -= 1;
    const int z = (old + t.word) % topics;
    ndk(t.doc, z) += 1;
    nkw(z, t.word) += 1;
    nk[z] += 1;
    t.topic = z;
  }
}
