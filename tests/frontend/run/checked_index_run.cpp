// Checked indexes end to end through rotor-cc (docs/design/containers.md, "Checked columns"): a
// buffered `T*` of per-topic sums used as one array (GibbsLDA++'s `nwsum`), whose length the
// loop proves by `sums[k]` in 'for k < K', written at `sums[to]` in a member helper (cloned into
// the loop) with `to` from a search that can end at K. The program's array has K + 1 elements, so
// the serial program is valid, but each worker's buffer holds K: when the index reaches K inside
// the parallel loop, the program must stop with the file, line, access and value instead of
// writing past the buffer. Outside the loop the same helper passes the index unchecked (prints
// `outside_ok=1` first).
#include <rotor/rotor.h>

#include <cstdio>
#include <vector>

struct Token {
  std::int32_t doc;
  std::int32_t word;
};

struct Sums {
  int* sums = nullptr;
  int K = 4;

  void add(int to) { sums[to] += 1; }

  void sweep(rotor::Dataset<Token>& tokens) {
#pragma rotor parallel_for buffered(sums)
    for (const Token& t : tokens) {
      int s = 0;
      for (int k = 0; k < K; ++k) {
        s += sums[k] * 0 + k;
      }
      int to = 0;
      for (to = 0; to < K; ++to) { // ends at K when no index fits
        if ((s + t.doc + to) % 5 == 0) {
          break;
        }
      }
      add(to);
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
  Sums sums;
  sums.sums = new int[5](); // K + 1 elements: index K is valid memory here
  sums.add(4);              // outside the loop: not checked
  std::printf("outside_ok=%d\n", sums.sums[4] == 1 ? 1 : 0);
  std::fflush(stdout);
  sums.sweep(tokens);
  std::printf("finished without a check\n");
  return 0;
}
