// Must stay serial: a ragged nest (`for (d < D) for (n < docs[d].size())`) whose key docs[d][n]
// comes from a table the loop itself changes (`docs[d][(n + 1) % size] = ...`): the keys the
// inspector reads before the loop are not the ones the body uses, and the order of the writes
// matters; only the loop's own order is right.
#include "soundness.h"

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  const int D = 29;
  std::vector<std::vector<int>> docs(D);
  for (int d = 0; d < D; ++d) {
    for (int n = 0; n < (d * 13) % 23 + 1; ++n) {
      docs[d].push_back((d * 5 + n * 3) % 37);
    }
  }
  std::vector<std::int64_t> per_word(37);
#pragma rotor parallel_for
  for (int d = 0; d < D; ++d) {
    for (std::size_t n = 0; n < docs[d].size(); ++n) {
      per_word[docs[d][n]] += d + 1;
      docs[d][(n + 1) % docs[d].size()] =
          static_cast<int>((per_word[docs[d][n]] + static_cast<std::int64_t>(n)) % 37);
    }
  }
  snd::Hash h;
  h << per_word;
  for (const auto& row : docs) {
    h << row;
  }
  h.print();
  return 0;
}
