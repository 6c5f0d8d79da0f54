// Good shape: GibbsLDA++'s topic table `int** z`, one row per document allocated with the
// document's own length (z[m] = new int[length]; an empty document has no row), in a ragged
// nest `for (m < M) for (n < corpus->docs[m]->length)`. The helper `sampling(m, n, epoch)` reads
// z[m][n] and the word corpus->docs[m]->words[n]; the body writes z[m][n]. No column loop proves
// a row length: the access z[m][n] in every iteration proves row m has docs[m]->length
// elements, so rotor-cc stages each row with its own length (stage_ragged_object_table: the
// helper names this->z). A second loop, bounded by `len[d]`, writes a table `acc` only in its
// body (stage_ragged_pointer_table), once under a condition that the unconditional access
// covers. The new topic is a hash of (m, n, epoch), the counts commute (integers), and nwsum
// is buffered: a row staged too short, not copied back, or not sent back to rank 0 changes the
// hash.
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
  int** z = nullptr;            ///< z[m]: docs[m]->length topics (nullptr for an empty document)
  std::int64_t** acc = nullptr; ///< acc[d]: len[d] values
  std::vector<int> len;
  std::vector<std::int64_t> nwsum;
  rotor::DistArray<std::int64_t, 2> word_topic{{41, 7}}, doc_topic{{53, 7}};

  int sampling(int m, int n, int epoch) {
    int topic = z[m][n];
    int w = corpus->docs[m]->words[n];
    word_topic(w, topic) -= 1;
    doc_topic(m, topic) -= 1;
    topic = static_cast<int>(mix(m, n, epoch) % K);
    word_topic(w, topic) += 1;
    doc_topic(m, topic) += 1;
    return topic;
  }

  void estimate(int epoch) {
#pragma rotor parallel_for buffered(nwsum)
    for (int m = 0; m < M; m++) {
      for (int n = 0; n < corpus->docs[m]->length; n++) {
        const int old = z[m][n];
        int topic = sampling(m, n, epoch);
        nwsum[old] -= 1;
        nwsum[topic] += 1;
        z[m][n] = topic;
      }
    }
  }

  void accumulate(int epoch) {
#pragma rotor parallel_for
    for (int d = 0; d < M; ++d) {
      for (int n = 0; n < len[d]; ++n) {
        acc[d][n] = acc[d][n] * 3 + (d ^ n) + epoch;
        if (n % 2 == 0) {
          acc[d][n] += 1;
        }
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
  m.z = new int*[static_cast<std::size_t>(corpus.M)];
  m.acc = new std::int64_t*[static_cast<std::size_t>(corpus.M)];
  m.nwsum.assign(static_cast<std::size_t>(m.K), 0);
  for (int d = 0; d < corpus.M; ++d) {
    const int length = (d * 37) % 61; // ragged: 0 to 60 tokens, some documents empty
    m.z[d] = length > 0 ? new int[static_cast<std::size_t>(length)] : nullptr;
    m.acc[d] = length > 0 ? new std::int64_t[static_cast<std::size_t>(length)] : nullptr;
    for (int n = 0; n < length; ++n) {
      storage[d].push_back((d * 11 + n * 7) % words);
      m.z[d][n] = (d + n) % m.K;
      m.acc[d][n] = d - n;
    }
    documents[d].words = storage[d].data();
    documents[d].length = length;
    pointers.push_back(&documents[d]);
    m.len.push_back(length);
  }
  corpus.docs = pointers.data();
  m.corpus = &corpus;
  for (int d = 0; d < m.M; ++d) {
    for (int n = 0; n < documents[d].length; ++n) {
      m.word_topic(documents[d].words[n], m.z[d][n]) += 1;
      m.doc_topic(d, m.z[d][n]) += 1;
      m.nwsum[static_cast<std::size_t>(m.z[d][n])] += 1;
    }
  }
  for (int epoch = 0; epoch < 3; ++epoch) {
    m.estimate(epoch);
    m.accumulate(epoch);
  }
  snd::Hash h;
  for (int d = 0; d < m.M; ++d) {
    for (int n = 0; n < m.len[d]; ++n) {
      h << static_cast<std::int64_t>(m.z[d][n]) << m.acc[d][n];
    }
    delete[] m.z[d];
    delete[] m.acc[d];
  }
  delete[] m.z;
  delete[] m.acc;
  h << m.word_topic << m.doc_topic << m.nwsum;
  h.print();
  return 0;
}
