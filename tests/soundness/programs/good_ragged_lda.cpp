// Good shape (issue 16 item 2): an LDA-style sampler over ragged per-document token vectors,
// written as the nested loops a serial program has: `for (d < D) for (n < docs[d].size())`
// (and `n < len[d]`), D a member of the model. The iterations are the pairs (d, n); the keys are
// d and the word docs[d][n], read by the inspector before the loop, so the plan is a rotation by
// (d, docs[d][n]); z[d][n] is a table row d; nwsum is buffered (integer sums: exact in any
// order). The serial replay cannot reorder an inspected loop,
// so the new topic is a hash of (d, n, epoch) and the count updates commute (integers): a lost or
// doubled count, or a z row not sent back to rank 0, still changes the hash.
#include "soundness.h"

namespace {

std::int64_t mix(int d, int n, int epoch) {
  std::uint64_t x = static_cast<std::uint64_t>(d) * 0x9e3779b97f4a7c15ull +
                    static_cast<std::uint64_t>(n) * 0xbf58476d1ce4e5b9ull +
                    static_cast<std::uint64_t>(epoch);
  x ^= x >> 31;
  x *= 0x94d049bb133111ebull;
  return static_cast<std::int64_t>(x >> 33);
}

struct Model {
  int D = 0;
  int K = 7;
  std::vector<std::vector<int>> docs, z;
  std::vector<int> len;
  std::vector<std::vector<std::int64_t>> nw, nd;
  std::vector<std::int64_t> nwsum;

  void sweep(int epoch) {
#pragma rotor parallel_for buffered(nwsum)
    for (int d = 0; d < D; ++d) {
      for (int n = 0; n < (int)docs[d].size(); ++n) {
        const int w = docs[d][n];
        const int t = z[d][n];
        nw[w][t] -= 1;
        nd[d][t] -= 1;
        nwsum[t] -= 1;
        const int new_t = static_cast<int>(mix(d, n, epoch) % K);
        nw[w][new_t] += 1;
        nd[d][new_t] += 1;
        nwsum[new_t] += 1;
        z[d][n] = new_t;
      }
    }
  }

  void count_by_length(std::vector<std::int64_t>& per_word, int epoch) {
#pragma rotor parallel_for
    for (int d = 0; d < D; d++)
      for (int n = 0; n < len[d]; n++) {
        if (n % 3 == 2) {
          continue;
        }
        per_word[docs[d][n]] += z[d][n] + epoch + n;
      }
  }
};

} // namespace

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  Model m;
  const int words = 41;
  m.D = 53;
  for (int d = 0; d < m.D; ++d) {
    const int length = (d * 37) % 61; // ragged: 0 to 60 tokens, some documents empty
    m.docs.emplace_back();
    m.z.emplace_back();
    for (int n = 0; n < length; ++n) {
      m.docs.back().push_back((d * 11 + n * 7) % words);
      m.z.back().push_back((d + n) % m.K);
    }
    m.len.push_back(length);
  }
  m.nw.assign(words, std::vector<std::int64_t>(m.K));
  m.nd.assign(m.D, std::vector<std::int64_t>(m.K));
  m.nwsum.assign(m.K, 0);
  for (int d = 0; d < m.D; ++d) {
    for (std::size_t n = 0; n < m.docs[d].size(); ++n) {
      m.nw[m.docs[d][n]][m.z[d][n]] += 1;
      m.nd[d][m.z[d][n]] += 1;
      m.nwsum[m.z[d][n]] += 1;
    }
  }
  std::vector<std::int64_t> per_word(words);
  for (int epoch = 0; epoch < 3; ++epoch) {
    m.sweep(epoch);
    m.count_by_length(per_word, epoch);
  }
  snd::Hash h;
  for (int d = 0; d < m.D; ++d) {
    h << m.z[d] << m.nd[d];
  }
  for (const auto& row : m.nw) {
    h << row;
  }
  h << per_word << m.nwsum;
  h.print();
  return 0;
}
