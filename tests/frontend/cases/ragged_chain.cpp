// A ragged nest counted and keyed through a pointer chain (issue 16), as GibbsLDA++ writes it:
// `for (m < M) for (n < corpus->docs[m]->length) { w = corpus->docs[m]->words[n]; ... }`. The
// inspector reads each row's count and the row pointer `corpus->docs[m]->words` once a row,
// noting the row's words as one range (codegen::Inspection::ragged_rows), and run_loop checks
// that the loop writes none of what the chain reached. The plan rotates over m and the word.
#include "common.h"

#include <vector>

struct Document {
  int* words;
  int length;
};

struct Corpus {
  Document** docs;
};

struct Lda {
  Corpus* corpus = nullptr;
  int M = 0;
  int K = 8;
  std::vector<std::vector<int>> z, nw, nd;

  void sweep() {
#pragma rotor parallel_for
    for (int m = 0; m < M; ++m) {
      for (int n = 0; n < corpus->docs[m]->length; ++n) {
        const int w = corpus->docs[m]->words[n];
        const int t = z[m][n];
        nw[w][t] -= 1;
        nd[m][t] -= 1;
        const int new_t = (t + w + m) % K;
        nw[w][new_t] += 1;
        nd[m][new_t] += 1;
        z[m][n] = new_t;
      }
    }
  }
};
