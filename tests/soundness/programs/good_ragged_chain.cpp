// Good shape (issue 16 item 2, through pointers): a GibbsLDA++-style sampler whose documents are
// objects reached through a chain of raw pointers, `corpus->docs[m]->length` and
// `corpus->docs[m]->words[n]` (Corpus* -> Document** -> int / int*). The inspector reads each
// row's count and each token's word through the chain before the loop, noting every byte it
// reads (codegen::ChainReads); run_loop finds no written array there, so the plan is a rotation by
// (m, word). The new topic is a hash of (m, n, epoch) and the count updates commute (integers).
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

struct Document {
  int* words = nullptr;
  int length = 0;
};

struct Corpus {
  Document** docs = nullptr;
  int M = 0;
};

struct Model {
  Corpus* corpus = nullptr;
  int M = 0;
  int K = 7;
  std::vector<std::vector<int>> z;
  std::vector<std::vector<std::int64_t>> nw, nd;

  void sweep(int epoch) {
#pragma rotor parallel_for
    for (int m = 0; m < M; m++) {
      for (int n = 0; n < corpus->docs[m]->length; n++) {
        const int w = corpus->docs[m]->words[n];
        const int t = z[m][n];
        nw[w][t] -= 1;
        nd[m][t] -= 1;
        const int new_t = static_cast<int>(mix(m, n, epoch) % K);
        nw[w][new_t] += 1;
        nd[m][new_t] += 1;
        z[m][n] = new_t;
      }
    }
  }
};

} // namespace

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  const int words = 41;
  Corpus corpus;
  corpus.M = 53;
  std::vector<Document> documents(static_cast<std::size_t>(corpus.M));
  std::vector<Document*> pointers;
  std::vector<std::vector<int>> storage(static_cast<std::size_t>(corpus.M));
  Model m;
  m.M = corpus.M;
  for (int d = 0; d < corpus.M; ++d) {
    const int length = (d * 37) % 61; // ragged: 0 to 60 tokens, some documents empty
    m.z.emplace_back();
    for (int n = 0; n < length; ++n) {
      storage[d].push_back((d * 11 + n * 7) % words);
      m.z.back().push_back((d + n) % m.K);
    }
    documents[d].words = storage[d].data();
    documents[d].length = length;
    pointers.push_back(&documents[d]);
  }
  corpus.docs = pointers.data();
  m.corpus = &corpus;
  m.nw.assign(words, std::vector<std::int64_t>(m.K));
  m.nd.assign(m.M, std::vector<std::int64_t>(m.K));
  for (int d = 0; d < m.M; ++d) {
    for (int n = 0; n < documents[d].length; ++n) {
      m.nw[documents[d].words[n]][m.z[d][n]] += 1;
      m.nd[d][m.z[d][n]] += 1;
    }
  }
  for (int epoch = 0; epoch < 3; ++epoch) {
    m.sweep(epoch);
  }
  snd::Hash h;
  for (int d = 0; d < m.M; ++d) {
    h << m.z[d] << m.nd[d];
  }
  for (const auto& row : m.nw) {
    h << row;
  }
  h.print();
  return 0;
}
