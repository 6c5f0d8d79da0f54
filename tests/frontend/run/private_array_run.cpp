// private(p) on a `T*` member (docs/design/containers.md, "Private pointer arrays"), in the shape
// of GibbsLDA++'s sampler: a member helper fills the probability vector `p[k]` for every topic,
// cumulates it (`p[k] += p[k - 1]`, reading `p[K - 1]`) and searches it (`p[topic]`), then moves
// the token's count to the chosen topic (checked columns of `int**` tables, a buffered `int*` of
// topic totals, written only, so its merged sums are exact). Instead of libc's random() (which
// private(random) gives each worker its own stream of) the draw is a hash of the token, so the
// serial build and the Rotor build at 2 threads and at np 2 must print the same topics and counts;
// `p` itself is excluded from the output (after a private(...) loop the program's array keeps its
// value from before the loop). `p`'s values are read only after they are written in the same
// iteration, so the per-worker copies change nothing else.
#include <rotor/rotor.h>

#include <cstdint>
#include <cstdio>
#include <vector>

struct Token {
  std::int32_t doc;
  std::int32_t word;
  std::int32_t topic;
};

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
    nwsum[topic] += 1;
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
  std::vector<Token> in;
  const int words = 23;
  for (int i = 0; i < 3000; ++i) {
    in.push_back({i % 97, (i * 7) % words, i % 5});
  }
  Sampler s;
  s.nw = new int*[words];
  for (int w = 0; w < words; ++w) {
    s.nw[w] = new int[s.K]();
  }
  s.nwsum = new int[s.K]();
  s.p = new double[s.K]();
  for (const Token& t : in) {
    s.nw[t.word][t.topic] += 1;
    s.nwsum[t.topic] += 1;
  }
  rotor::Dataset<Token> tokens(in);
  for (int it = 0; it < 3; ++it) {
    s.sweep(tokens);
  }
  std::uint64_t h = 1469598103934665603ull;
  const auto mix = [&](std::int64_t v) {
    h = (h ^ static_cast<std::uint64_t>(v)) * 1099511628211ull;
  };
  for (int w = 0; w < words; ++w) {
    for (int k = 0; k < s.K; ++k) {
      mix(s.nw[w][k]);
    }
  }
  for (int k = 0; k < s.K; ++k) {
    mix(s.nwsum[k]);
  }
  std::vector<std::int64_t> per_topic(static_cast<std::size_t>(s.K));
  for (const Token& t : tokens) {
    per_topic[static_cast<std::size_t>(t.topic)] += t.doc + 1;
  }
  for (std::int64_t v : per_topic) {
    mix(v);
  }
  std::printf("counts=%llx\n", static_cast<unsigned long long>(h));
  return 0;
}
