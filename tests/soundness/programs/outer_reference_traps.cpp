// Trap: references declared outside the loop that point into an array the loop writes: an element
// of a DistArray (`const x& = A(0, 0)`), a std::vector (`y = W[0]`), a whole vector (`W2 = W`),
// a row of a table (`row0 = nw[0]`) and a whole table (`tab = nw`). The body reads through them
// values that earlier iterations changed, so each loop must stay serial.
#include "soundness.h"

constexpr std::int64_t P = 1000003;

static void epoch(rotor::Dataset<Token>& tokens, rotor::DistArray<std::int64_t, 2>& A,
                  std::vector<std::int64_t>& W, std::vector<std::vector<std::int64_t>>& nw) {
  const std::int64_t& x = A(0, 0);
#pragma rotor parallel_for
  for (const Token& t : tokens) {
    A(t.word, 0) = (A(t.word, 0) * 3 + x + t.doc) % P;
  }
  const std::int64_t& y = W[0];
#pragma rotor parallel_for
  for (const Token& t : tokens) {
    W[t.word] = (W[t.word] * 5 + y + t.doc) % P;
  }
  auto& W2 = W;
#pragma rotor parallel_for
  for (const Token& t : tokens) {
    W[t.word] = (W[t.word] * 7 + W2[1] + t.doc) % P;
  }
  std::vector<std::int64_t>& row0 = nw[0];
#pragma rotor parallel_for
  for (const Token& t : tokens) {
    nw[t.word][t.topic] = (nw[t.word][t.topic] * 11 + row0[t.topic] + t.doc) % P;
  }
  auto& tab = nw;
#pragma rotor parallel_for
  for (const Token& t : tokens) {
    nw[t.word][t.topic] = (nw[t.word][t.topic] * 13 + tab[1][t.topic] + t.doc) % P;
  }
}

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Token> tokens(snd::tokens());
  rotor::DistArray<std::int64_t, 2> A({41, 1});
  A.fill(1);
  std::vector<std::int64_t> W(41, 1);
  std::vector<std::vector<std::int64_t>> nw(41, std::vector<std::int64_t>(8, 1));
  for (int it = 0; it < 2; ++it) {
    epoch(tokens, A, W, nw);
  }
  snd::Hash h;
  h << A << W << nw;
  h.records(tokens);
  h.print();
  return 0;
}
