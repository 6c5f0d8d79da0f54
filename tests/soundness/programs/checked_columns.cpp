// Good shape: `int**` tables whose column no loop bounds (docs/design/containers.md, "Checked
// columns"), as LDA samplers write them: the topic read from the record (`nw[w][t.topic]`) and
// the index a search loop stopped at, in the loop body and in a member helper (inside a search
// loop's body its counter, declared before the loop, is bounded: that column is not checked). The
// row length comes from the accesses in 'for (k = 0; k < K; ++k)'; rotor-cc rewrites each unbounded
// column to a run-time check, so each loop must be parallel (one_d by word) and equal to the serial
// replay. The helper also reads a `T*` table inside its k loop, an access the serial loop could
// skip (K = 0) but whose row the helper's first access proves. A third loop keeps per-topic sums
// in a buffered `int*` used as one array (GibbsLDA++'s `nwsum`): its length is proven by
// `sums[k]` in the k loop and its topic indexes are checked at run time; it only adds and
// subtracts integers, so the merged sums equal the serial replay's.
#include "soundness.h"

constexpr std::int64_t P = 1000003;
constexpr int kTopics = 4;

/// The body names the table itself: the column is the record's topic.
static std::int64_t recount(rotor::Dataset<Token>& tokens, int** nw, int K) {
  std::int64_t total = 0;
#pragma rotor parallel_for
  for (Token& t : tokens) {
    std::int64_t s = 0;
    for (int k = 0; k < K; ++k) {
      s = (s * 7 + nw[t.word][k] + t.doc) % P;
    }
    nw[t.word][t.topic] -= 1;
    t.topic = static_cast<std::int32_t>((s + t.doc) % K);
    nw[t.word][t.topic] += 1;
    total += s;
  }
  return total;
}

struct Sampler {
  int** nw = nullptr;
  int* totals = nullptr; // per word; read again inside the helper's k loop (proven by the first)
  int K = kTopics;

  /// A helper the loop calls: its columns are the caller's topics.
  int move(int w, int from, int to) {
    totals[w] -= 1;
    nw[w][from] -= 1;
    std::int64_t mix = 0;
    for (int k = 0; k < K; ++k) {
      mix += nw[w][k] * (totals[w] + 1);
    }
    nw[w][to] += 1;
    totals[w] += static_cast<int>(1 + mix % 2);
    return to;
  }

  /// Per-topic sums of the records' topics, in a buffered `T*` indexed by computed topics.
  void tally(rotor::Dataset<Token>& tokens, int* sums) {
#pragma rotor parallel_for buffered(sums)
    for (const Token& t : tokens) {
      const int from = t.topic % K;
      const int to = (t.doc * 3 + t.word) % K;
      for (int k = 0; k < K; ++k) {
        sums[k] += k == to ? 2 : 0;
      }
      sums[from] -= 1;
      sums[to] -= 1;
    }
  }

  std::int64_t sweep(rotor::Dataset<Token>& tokens) {
    std::int64_t total = 0;
#pragma rotor parallel_for
    for (Token& t : tokens) {
      std::int64_t s = 0;
      for (int k = 0; k < K; ++k) {
        s = (s * 7 + nw[t.word][k] + t.doc) % P;
      }
      int k = 0;
      for (k = 0; k < K - 1; ++k) { // a search: stops at the first fit, or at K - 1
        if ((s + k) % 3 == 0) {
          break;
        }
      }
      int j = K;
      for (j = 0; j < K; ++j) { // j, declared before its loop, is below K here: not checked
        if (nw[t.word][j] % 5 == 0) {
          break;
        }
      }
      t.topic = move(t.word, t.topic, k);
      total += s + j;
    }
    return total;
  }
};

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Token> tokens(snd::tokens());
  for (Token& t : tokens) {
    t.topic = (t.doc + t.word) % kTopics;
  }
  Sampler sampler;
  const int words = static_cast<int>(tokens.extent(&Token::word));
  sampler.nw = new int*[static_cast<std::size_t>(words)];
  std::vector<int> totals(static_cast<std::size_t>(words), 7);
  sampler.totals = totals.data();
  for (int w = 0; w < words; ++w) {
    sampler.nw[w] = new int[kTopics];
    for (int k = 0; k < kTopics; ++k) {
      sampler.nw[w][k] = 100 + w + k;
    }
  }
  std::int64_t total = 0;
  std::vector<int> sums(kTopics, 0);
  for (int it = 0; it < 3; ++it) {
    total = (total * 31 + recount(tokens, sampler.nw, kTopics)) % P;
    total = (total * 31 + sampler.sweep(tokens)) % P;
    sampler.tally(tokens, sums.data());
  }
  snd::Hash h;
  for (int w = 0; w < words; ++w) {
    for (int k = 0; k < kTopics; ++k) {
      h << static_cast<std::int64_t>(sampler.nw[w][k]);
    }
    delete[] sampler.nw[w];
  }
  delete[] sampler.nw;
  h << total << totals << sums;
  h.records(tokens);
  h.print();
  return 0;
}
