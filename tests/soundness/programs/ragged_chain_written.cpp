// Must stay serial (issue 16, pointer chains): ragged nests counted and keyed through
// `corpus->docs[m]->length` / `corpus->docs[m]->words[n]` whose chain the loop changes.
// sweep: document 5's words are row 2 of z, which the loop writes (staged table): the keys the
// inspector read before the loop are not the ones the body reads, so run_loop finds the overlap
// (codegen::ChainReads), runs nothing, and the loop runs as written.
// shift: writes the words through the chain itself: a write through a pointer from outside the
// loop (the analysis makes the loop serial; it runs as written).
#include "soundness.h"

namespace {

struct Document {
  int* words = nullptr;
  int length = 0;
};

struct Corpus {
  Document** docs = nullptr;
};

struct Model {
  Corpus* corpus = nullptr;
  int M = 0;
  int K = 7;
  std::vector<std::vector<int>> z;
  std::vector<std::vector<std::int64_t>> nw;

  void sweep(int epoch) {
#pragma rotor parallel_for
    for (int m = 0; m < M; m++) {
      for (int n = 0; n < corpus->docs[m]->length; n++) {
        const int w = corpus->docs[m]->words[n];
        const int t = z[m][n];
        nw[w][t] += 1;
        z[m][n] = (w + n + epoch) % K;
      }
    }
  }

  void shift(std::vector<std::int64_t>& per_word) {
#pragma rotor parallel_for
    for (int m = 0; m < M; m++) {
      for (int n = 0; n < corpus->docs[m]->length; n++) {
        per_word[corpus->docs[m]->words[n]] += m + 1;
        corpus->docs[(m + 1) % M]->words[0] = (m + n) % K;
      }
    }
  }
};

} // namespace

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  const int words = 41;
  Model m;
  m.M = 23;
  std::vector<Document> documents(static_cast<std::size_t>(m.M));
  std::vector<Document*> pointers;
  std::vector<std::vector<int>> storage(static_cast<std::size_t>(m.M));
  for (int d = 0; d < m.M; ++d) {
    const int length = (d * 13) % 17 + 1;
    m.z.emplace_back();
    for (int n = 0; n < length; ++n) {
      storage[d].push_back((d * 11 + n * 7) % words);
      m.z.back().push_back((d + n) % m.K);
    }
    documents[d].words = storage[d].data();
    documents[d].length = length;
    pointers.push_back(&documents[d]);
  }
  documents[5].words = m.z[2].data(); // topics < K < words: valid word ids
  documents[5].length = static_cast<int>(m.z[2].size());
  Corpus corpus;
  corpus.docs = pointers.data();
  m.corpus = &corpus;
  m.nw.assign(words, std::vector<std::int64_t>(m.K));
  std::vector<std::int64_t> per_word(words);
  for (int epoch = 0; epoch < 3; ++epoch) {
    m.sweep(epoch);
    m.shift(per_word);
  }
  snd::Hash h;
  for (int d = 0; d < m.M; ++d) {
    h << m.z[d] << storage[d];
  }
  for (const auto& row : m.nw) {
    h << row;
  }
  h << per_word;
  h.print();
  return 0;
}
