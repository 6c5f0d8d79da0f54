// Checked columns inside a helper clone (docs/design/helper-clones.md; containers.md, "Checked
// columns"): the helper `add` uses the buffered `totals` by its own name, so the loop runs a copy
// of it cloned into the body lambda, and it writes `nw[w][to]` with `to` from a search that can
// end at K. The clone must carry the run-time check the helper gets: the program stops with the
// file, line, access and value when a column reaches K inside the parallel loop (before the fix,
// the clone wrote column K of a staged row unchecked, into the next row). Outside the loop the
// helper passes the column unchecked (prints `outside_ok=1` first).
#include <rotor/rotor.h>

#include <cstdio>
#include <vector>

struct Token {
  std::int32_t doc;
  std::int32_t word;
};

struct Counts {
  int** nw = nullptr;
  std::vector<int> totals;
  int K = 4;

  void add(int w, int to) {
    nw[w][to] += 1;
    totals[to] += 1;
  }

  void sweep(rotor::Dataset<Token>& tokens) {
#pragma rotor parallel_for buffered(totals)
    for (const Token& t : tokens) {
      int s = 0;
      for (int k = 0; k < K; ++k) {
        s += nw[t.word][k] + totals[k];
      }
      int to = 0;
      for (to = 0; to < K; ++to) { // ends at K when no column fits
        if ((s + t.doc + to) % 5 == 0) {
          break;
        }
      }
      add(t.word, to);
    }
  }
};

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  std::vector<Token> tokens_in;
  for (int i = 0; i < 400; ++i) {
    tokens_in.push_back({i % 17, i % 11});
  }
  rotor::Dataset<Token> tokens(tokens_in);
  Counts counts;
  counts.nw = new int*[11];
  for (int w = 0; w < 11; ++w) {
    counts.nw[w] = new int[5](); // K + 1 columns: column K is valid memory here
  }
  counts.totals.assign(5, 0);
  counts.add(3, 4); // outside the loop: not checked
  std::printf("outside_ok=%d\n", counts.nw[3][4] == 1 ? 1 : 0);
  std::fflush(stdout);
  counts.sweep(tokens);
  std::printf("finished without a check\n");
  return 0;
}
