// Shape: an `int** nw` parameter (count table) written in a free function's loop.
#include "soundness.h"

static void sweep(rotor::Dataset<Token>& tokens, rotor::DistArray<std::int32_t, 1>& nd, int** nw) {
#pragma rotor parallel_for
  for (const Token& t : tokens) {
    nd[t.doc] += 1;
    nw[t.word % 5][t.topic] = (nw[t.word % 5][t.topic] * 3 + t.doc) % 1000003;
  }
}

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Token> tokens(snd::tokens());
  rotor::DistArray<std::int32_t, 1> nd({31});
  int storage[5][8] = {};
  int* rows[5];
  for (int w = 0; w < 5; ++w) {
    rows[w] = storage[w];
  }
  for (int it = 0; it < 3; ++it) {
    sweep(tokens, nd, rows);
  }
  snd::Hash h;
  h << nd << storage;
  h.print();
  return 0;
}
