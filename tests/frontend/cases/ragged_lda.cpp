// A ragged nest (issue 16 item 2), as GibbsLDA++-style samplers write it: documents of different
// lengths, `for (d < D) for (n < docs[d].size())`, D a member of the model. The iterations are the
// pairs (d, n); the keys d and the word docs[d][n] (read-only: the inspector reads it before the
// loop); z[d][n] (written, copied into a local) is no key. The plan rotates over d and the word.
// The second loop counts with `n < len[d]` but writes len: serial, naming the bound.
#include "common.h"

#include <vector>

struct Lda {
  int D = 0;
  int K = 8;
  std::vector<std::vector<int>> docs, z;
  std::vector<int> len;
  std::vector<std::vector<int>> nw, nd;

  void sweep() {
#pragma rotor parallel_for
    for (int d = 0; d < D; ++d) {
      for (int n = 0; n < (int)docs[d].size(); ++n) {
        const int w = docs[d][n];
        const int t = z[d][n];
        nw[w][t] -= 1;
        nd[d][t] -= 1;
        const int new_t = (t + w + d) % K;
        nw[w][new_t] += 1;
        nd[d][new_t] += 1;
        z[d][n] = new_t;
      }
    }
  }

  void trim(std::vector<long>& per_word) {
#pragma rotor parallel_for
    for (int d = 0; d < D; ++d)
      for (int n = 0; n < len[d]; ++n) {
        per_word[docs[d][n]] += 1;
        len[d] = n;
      }
  }
};
