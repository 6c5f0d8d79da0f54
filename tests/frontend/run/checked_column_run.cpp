// Checked columns end to end through rotor-cc (docs/design/containers.md, "Checked columns"): the
// loop proves rows of K elements ('for k < K'), a helper writes `nw[w][to]` with `to` from a search
// that can end at K. The program's rows have K + 1 elements, so the serial program is valid, but
// Rotor staged only K per row: when a column reaches K inside the parallel loop, the program must
// stop with the file, line, access and value instead of writing into the next staged row. Outside
// the loop the same helper passes the column unchecked (prints `outside_ok=1` first).
#include <rotor/rotor.h>

#include <cstdio>
#include <vector>

struct Token {
  std::int32_t doc;
  std::int32_t word;
};

struct Counts {
  int** nw = nullptr;
  int K = 4;

  void add(int w, int to) { nw[w][to] += 1; }

  void sweep(rotor::Dataset<Token>& tokens) {
#pragma rotor parallel_for
    for (const Token& t : tokens) {
      int s = 0;
      for (int k = 0; k < K; ++k) {
        s += nw[t.word][k];
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
  counts.add(3, 4); // outside the loop: not checked
  std::printf("outside_ok=%d\n", counts.nw[3][4] == 1 ? 1 : 0);
  std::fflush(stdout);
  counts.sweep(tokens);
  std::printf("finished without a check\n");
  return 0;
}
