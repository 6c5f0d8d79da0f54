// Compile-and-run test of helper clones (docs/design/helper-clones.md): a sampler whose loop
// calls a member helper that updates a buffered std::vector member and a buffered T* member
// (GibbsLDA++'s `sampling(m, n)` shape) runs beside the same loop written inline over buffered
// rotor::DistArrays. Both give each worker its own buffers merged by the same rule, so after each
// sweep the members must equal the DistArrays bitwise, on every rank (a rank that sees a
// difference exits 1). A helper that reached the shared members instead of the worker's buffers
// would read other values (the helper reads the totals it writes) and lose or double writes
// across ranks. Built only through rotor-cc; run at 2 threads and at np 2 (twice: deterministic).
#include <rotor/rotor.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace helper_clones_test {

constexpr int k_topics = 5;

struct Token {
  std::int32_t doc;
  std::int32_t word;
  std::int32_t topic;
};

int g_checks = 0;
int g_equal = 0;

/// Counts one comparison of `n` elements at `a` and `b`, bitwise; prints the first difference.
template <class T> void check(const char* what, const T* a, const T* b, std::size_t n) {
  ++g_checks;
  if (std::memcmp(a, b, n * sizeof(T)) == 0) {
    ++g_equal;
    return;
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) {
      std::fprintf(stderr, "%s: element %zu differs: %.17g vs %.17g\n", what, i,
                   static_cast<double>(a[i]), static_cast<double>(b[i]));
      return;
    }
  }
}

class Sampler {
public:
  explicit Sampler(int docs)
      : counts_(static_cast<std::size_t>(docs) * k_topics, 1.0f), counts_d_({docs, k_topics}) {
    counts = counts_.data();
    for (int k = 0; k < k_topics; ++k) {
      totals_d_(k) = totals[k];
    }
    std::memcpy(counts_d_.data(), counts, counts_.size() * sizeof(float));
  }

  std::vector<double> totals = std::vector<double>(k_topics, 1.0); ///< per-topic totals
  float* counts = nullptr;                                         ///< per-document rows

  /// One sweep through the helper, one written inline over the DistArrays; then compares them.
  void sweep(rotor::Dataset<Token>& tokens) {
#pragma rotor parallel_for buffered(totals, counts)
    for (const Token& t : tokens) {
      const int topic = sample(t.doc, t.word);
      totals[topic] += 0.5;
    }
#pragma rotor parallel_for buffered(totals_d_, counts_d_)
    for (const Token& t : tokens) {
      const int first = t.word % k_topics;
      totals_d_(first) -= 0.25;
      for (int k = 0; k < k_topics; ++k) {
        counts_d_(t.doc, k) += static_cast<float>(totals_d_(k) * 0.01) + (k == first ? 1.0f : 0.0f);
      }
      totals_d_((first + t.doc) % k_topics) += 0.5;
    }
    check("buffered std::vector member", totals.data(), totals_d_.data(), totals.size());
    check("buffered T* member", counts, counts_d_.data(), counts_.size());
  }

  double checksum() const {
    double sum = 0;
    for (double v : totals) {
      sum += v;
    }
    for (float v : counts_) {
      sum += v;
    }
    return sum;
  }

private:
  /// GibbsLDA++'s shape: takes a token out of the totals, reads every topic's total, writes the
  /// document's row; the loop body calls it by its bare name.
  int sample(int doc, int word) {
    const int first = word % k_topics;
    totals[first] -= 0.25;
    for (int k = 0; k < k_topics; ++k) {
      counts[doc * k_topics + k] +=
          static_cast<float>(totals[k] * 0.01) + (k == first ? 1.0f : 0.0f);
    }
    return (first + doc) % k_topics;
  }

  std::vector<float> counts_; ///< the memory `counts` points at
  rotor::DistArray<double, 1> totals_d_{{k_topics}};
  rotor::DistArray<float, 2> counts_d_;
};

} // namespace helper_clones_test

int main(int argc, char** argv) {
  using namespace helper_clones_test;
  rotor::Session session(argc, argv);
  const int docs = 13;
  std::vector<Token> records;
  for (int i = 0; i < 700; ++i) {
    records.push_back({(i * 7) % docs, (i * 13) % 29, 0});
  }
  rotor::Dataset<Token> tokens(records);
  Sampler sampler(docs);
  for (int sweep = 0; sweep < 2; ++sweep) {
    sampler.sweep(tokens);
  }
  std::printf("equal=%d of %d checksum=%lld\n", g_equal, g_checks,
              static_cast<long long>(std::llround(sampler.checksum() * 1000)));
  return g_equal == g_checks ? 0 : 1;
}
