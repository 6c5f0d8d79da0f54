// Trap: std::vector<std::vector<T>> tables the analysis cannot bound must keep their loops serial:
// a row chosen through a lookup table (`nw[perm[t.word]][k]`: two words may share a row), a
// reference to a row (`auto& row = nw[t.word]`), the table passed to a helper, and a row grown in
// the loop (`push_back`). Each loop must stay serial and give the serial result.
#include "soundness.h"

constexpr std::int64_t P = 1000003;
constexpr int kTopics = 8;

static void bump(std::vector<std::vector<std::int64_t>>& table, int row, std::int64_t v) {
  table[row][0] = (table[row][0] * 5 + v) % P;
}

static void epoch(rotor::Dataset<Token>& tokens, std::vector<std::vector<std::int64_t>>& nw,
                  const std::vector<int>& perm, std::vector<std::vector<std::int64_t>>& grow) {
#pragma rotor parallel_for
  for (const Token& t : tokens) {
    for (int k = 0; k < kTopics; ++k) {
      nw[perm[t.word]][k] = (nw[perm[t.word]][k] * 3 + t.doc + k) % P;
    }
  }
#pragma rotor parallel_for
  for (const Token& t : tokens) {
    auto& row = nw[t.word];
    row[t.topic] = (row[t.topic] * 7 + t.doc) % P;
  }
#pragma rotor parallel_for
  for (const Token& t : tokens) {
    bump(nw, t.word, t.doc);
  }
#pragma rotor parallel_for
  for (const Token& t : tokens) {
    if (grow[t.doc].size() < 40) {
      grow[t.doc].push_back(t.word);
    }
  }
}

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Token> tokens(snd::tokens());
  std::vector<std::vector<std::int64_t>> nw(41, std::vector<std::int64_t>(kTopics, 1));
  std::vector<std::vector<std::int64_t>> grow(31);
  std::vector<int> perm(41);
  for (int w = 0; w < 41; ++w) {
    perm[w] = (w * 3) % 20; // words w and w + 20 share a row
  }
  for (int it = 0; it < 3; ++it) {
    epoch(tokens, nw, perm, grow);
  }
  snd::Hash h;
  h << nw << grow;
  h.records(tokens);
  h.print();
  return 0;
}
