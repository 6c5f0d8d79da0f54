// Good shape: private(p) on a `T*` member (docs/design/containers.md, "Private pointer arrays"),
// GibbsLDA++'s sampler: a member helper fills the probability vector `p[k]` for every topic,
// cumulates it (`p[k] += p[k - 1]`, reading `p[K - 1]`) and searches it (`p[topic]`), then moves
// the token's count to the chosen topic (checked columns of an `int**` table, partitioned by
// word; a buffered `int*` of topic totals, written only, so its merged sums are exact, whose
// length the k loop at the end proves). Instead of libc's random() (which private(random) gives
// each worker its own stream of) the draw is a hash of the token, and `p` is read only after it
// is written in the same iteration, so the loop equals the serial replay of its recorded order
// at 2 threads and at np 2. `p` itself is not hashed: after a private(...) loop the program's
// array keeps its values from before the loop, the serial replay's the last iteration's.
#include "soundness.h"

struct Sampler {
  int K = 5;
  int** nw = nullptr;
  int* nwsum = nullptr;
  double* p = nullptr;

  int sample(const Token& t) {
    int topic = t.topic;
    nw[t.word][topic] -= 1;
    nwsum[topic] -= 1;
    for (int k = 0; k < K; k++) {
      p[k] = (nw[t.word][k] + 0.1) / (t.doc % 7 + 1.0) + k * 1e-3;
    }
    for (int k = 1; k < K; k++) {
      p[k] += p[k - 1];
    }
    const std::uint32_t h = static_cast<std::uint32_t>(t.doc) * 2654435761u ^
                            static_cast<std::uint32_t>(t.word) * 40503u;
    const double u = (h % 1000) / 1000.0 * p[K - 1];
    for (topic = 0; topic < K - 1; topic++) {
      if (p[topic] > u) {
        break;
      }
    }
    nw[t.word][topic] += 1;
    for (int k = 0; k < K; k++) { // written only: the merged sums are exact
      nwsum[k] += k == topic ? 1 : 0;
    }
    return topic;
  }

  void sweep(rotor::Dataset<Token>& tokens) {
#pragma rotor parallel_for private(p) buffered(nwsum)
    for (Token& t : tokens) {
      t.topic = sample(t);
    }
  }
};

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Token> tokens(snd::tokens());
  Sampler s;
  const int words = static_cast<int>(tokens.extent(&Token::word));
  s.nw = new int*[static_cast<std::size_t>(words)];
  for (int w = 0; w < words; ++w) {
    s.nw[w] = new int[s.K]();
  }
  s.nwsum = new int[s.K]();
  s.p = new double[s.K]();
  for (Token& t : tokens) {
    t.topic %= s.K;
    s.nw[t.word][t.topic] += 1;
    s.nwsum[t.topic] += 1;
  }
  for (int it = 0; it < 3; ++it) {
    s.sweep(tokens);
  }
  snd::Hash h;
  for (int w = 0; w < words; ++w) {
    for (int k = 0; k < s.K; ++k) {
      h << static_cast<std::int64_t>(s.nw[w][k]);
    }
  }
  for (int k = 0; k < s.K; ++k) {
    h << static_cast<std::int64_t>(s.nwsum[k]);
  }
  h.records(tokens);
  h.print();
  return 0;
}
