// Good shape (issue 16 item 2, through pointers): a GibbsLDA++-style sampler whose documents are
// objects reached through a chain of raw pointers, `corpus->docs[m]->length` and
// `corpus->docs[m]->words[n]` (Corpus* -> Document** -> int / int*). The inspector reads each
// row's count and each token's word through the chain before the loop, noting every byte it
// reads (codegen::ChainReads); run_loop finds no written array there, so the plan is a rotation by
// (m, word), also where the word is read in a helper the body calls with (m, n). The new topic is a
// hash of (m, n, epoch) and the count updates commute (integers).
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

  // GibbsLDA++'s shape: the word is read in the helper, from the call's arguments (a key all
  // the same: the helper's m and n are the loop's); its counts are DistArrays of the model.
  rotor::DistArray<std::int64_t, 2> word_topic{{41, 7}}, doc_topic{{53, 7}};
  rotor::DistArray<int, 2> topic_of{{53, 61}};

  int sample(int m, int n, int epoch) {
    const int t = topic_of(m, n);
    int w = corpus->docs[m]->words[n];
    word_topic(w, t) -= 1;
    doc_topic(m, t) -= 1;
    const int new_t = static_cast<int>(mix(m, n, epoch + 17) % K);
    word_topic(w, new_t) += 1;
    doc_topic(m, new_t) += 1;
    return new_t;
  }

  void sweep_in_helper(int epoch) {
#pragma rotor parallel_for
    for (int m = 0; m < M; m++) {
      for (int n = 0; n < corpus->docs[m]->length; n++) {
        int topic = sample(m, n, epoch);
        topic_of(m, n) = topic;
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
    m.sweep_in_helper(epoch);
  }
  snd::Hash h;
  for (int d = 0; d < m.M; ++d) {
    h << m.z[d] << m.nd[d];
  }
  for (const auto& row : m.nw) {
    h << row;
  }
  h << m.word_topic << m.doc_topic << m.topic_of;
  h.print();
  return 0;
}
