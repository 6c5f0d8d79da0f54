// The inspector's loop shapes beyond records with flat fields (rotor/runtime/Inspector.h), run
// as rotor-cc emits them: a loop over std::pair records with nested keys (`first.first`) that
// writes them, and an integer-range loop `for (int m = 0; m < M; ++m)` keyed by index vectors
// (`doc_of[m]`). Each equals a serial replay of its recorded order bitwise on every rank, with an
// order-dependent (LDA-shaped) body, so a wrong schedule or a lost write changes the result.
#include "LoopTestUtil.h"

#include "rotor/runtime/Inspector.h"

#include <utility>

namespace rotor::test {
namespace {

using codegen::Kind;
using codegen::Role;

using Entry = std::pair<std::pair<int, int>, int>; // (doc, word), topic

/// A new topic for (doc, word) from the current counts (order-dependent), counts moved.
template <class DT, class WT> int resample(int doc, int word, int topic, DT& dt, WT& wt, int k) {
  --dt(doc, topic);
  --wt(word, topic);
  int best = 0;
  std::int64_t best_score = -1;
  for (int z = 0; z < k; ++z) {
    const std::int64_t score = (dt(doc, z) + 1) * (wt(word, z) + 2) +
                               static_cast<std::int64_t>(mix(doc * 131 + word * 7 + z) % 3);
    if (score > best_score) {
      best_score = score;
      best = z;
    }
  }
  ++dt(doc, best);
  ++wt(word, best);
  return best;
}

struct Corpus {
  static constexpr int docs = 19, words = 37, topics = 4;
  std::vector<int> doc_of, word_of, topic_of;
  DistArray<std::int32_t, 2> dt, wt;
  explicit Corpus(int n) : dt({docs, topics}), wt({words, topics}) {
    for (int i = 0; i < n; ++i) {
      const std::uint64_t h = mix(977u + static_cast<std::uint64_t>(i));
      doc_of.push_back(static_cast<int>(h % docs));
      word_of.push_back(static_cast<int>((h >> 16) % words));
      topic_of.push_back(static_cast<int>((h >> 30) % topics));
      ++dt(doc_of.back(), topic_of.back());
      ++wt(word_of.back(), topic_of.back());
    }
  }
  std::vector<Entry> entries() const {
    std::vector<Entry> out;
    for (std::size_t i = 0; i < doc_of.size(); ++i) {
      out.push_back({{doc_of[i], word_of[i]}, topic_of[i]});
    }
    return out;
  }
};

/// `for (Entry& e : entries) e.second = resample(e.first.first, e.first.second, e.second, ...)`
/// as rotor-cc emits it (keys read through lambdas; the records written and shared).
void run_pairs(codegen::Inspection<2>& inspection, std::vector<Entry>& entries, Corpus& c) {
  auto s = spec(Kind::rotation, {0, 1},
                {array("dt", Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}),
                 array("wt", Role::rotating, 1, true, {{1, 0, 0}, {-1, 0, 0}})});
  s.views = {"entries"};
  auto&& range = entries;
  auto& iterations = inspection.records(
      range, [](const auto& r) { return r.first.first; },
      [](const auto& r) { return r.first.second; });
  std::tuple<> none;
  codegen::run_loop(s, iterations, codegen::iteration_keys<2>(), std::tie(c.dt, c.wt), none,
                    [&](const codegen::Iteration<2>& it, auto& dt, auto& wt) {
                      Entry& e = range[static_cast<std::size_t>(it.at)];
                      e.second =
                          resample(e.first.first, e.first.second, e.second, dt, wt, Corpus::topics);
                    });
  inspection.share_written(range);
}

TEST(InspectorShapes, PairRecordsWritingEqualSerialReplay) {
  CaptureOrders capture;
  Corpus c(2500), reference(2500);
  std::vector<Entry> entries = c.entries(), serial = reference.entries();
  codegen::Inspection<2> inspection;
  for (int sweep = 0; sweep < 3; ++sweep) {
    run_pairs(inspection, entries, c);
    replay(serial, last_order(), [&](Entry& e) {
      e.second = resample(e.first.first, e.first.second, e.second, reference.dt, reference.wt,
                          Corpus::topics);
    });
  }
  EXPECT_TRUE(bitwise_equal(c.dt, reference.dt));
  EXPECT_TRUE(bitwise_equal(c.wt, reference.wt));
  EXPECT_EQ(entries, serial) << "records differ from the serial replay on rank "
                             << detail::collective().rank();
  EXPECT_EQ(inspection.rebuilds(), 1u); // topics are written, keys are not
}

/// `for (int m = 0; m < M; ++m) resample(doc_of[m], word_of[m], (m + sweep) % topics, ...)` as
/// rotor-cc emits it: keys m, doc_of[m], word_of[m]; the plan rotates over keys 1 and 2. The
/// body writes only the tables (bound DistArrays); its choices depend on their current counts.
void run_range(codegen::Inspection<3>& inspection, Corpus& c, int M, int sweep) {
  auto s = spec(Kind::rotation, {1, 2},
                {array("dt", Role::partitioned, 1, true, {{1, 0, 0}, {-1, 0, 0}}),
                 array("wt", Role::rotating, 2, true, {{2, 0, 0}, {-1, 0, 0}})});
  const auto bound = M;
  auto& iterations = inspection.range(
      bound, [&](std::int64_t m) { return m; },
      [&](std::int64_t m) { return c.doc_of[static_cast<std::size_t>(m)]; },
      [&](std::int64_t m) { return c.word_of[static_cast<std::size_t>(m)]; });
  std::tuple<> none;
  codegen::run_loop(s, iterations, codegen::iteration_keys<3>(), std::tie(c.dt, c.wt), none,
                    [&](const codegen::Iteration<3>& it, auto& dt, auto& wt) {
                      const auto m = static_cast<std::size_t>(it.at);
                      resample(c.doc_of[m], c.word_of[m],
                               static_cast<int>(m + static_cast<std::size_t>(sweep)) %
                                   Corpus::topics,
                               dt, wt, Corpus::topics);
                    });
}

TEST(InspectorShapes, IntegerRangeWithDerivedKeysEqualsSerialReplay) {
  CaptureOrders capture;
  const int M = 2500;
  Corpus c(M), reference(M);
  std::vector<int> index(M);
  for (int m = 0; m < M; ++m) {
    index[static_cast<std::size_t>(m)] = m;
  }
  codegen::Inspection<3> inspection;
  for (int sweep = 0; sweep < 3; ++sweep) {
    run_range(inspection, c, M, sweep);
    replay(index, last_order(), [&](int& m) {
      const auto i = static_cast<std::size_t>(m);
      resample(reference.doc_of[i], reference.word_of[i], (m + sweep) % Corpus::topics,
               reference.dt, reference.wt, Corpus::topics);
    });
  }
  EXPECT_TRUE(bitwise_equal(c.dt, reference.dt));
  EXPECT_TRUE(bitwise_equal(c.wt, reference.wt));
  EXPECT_EQ(inspection.rebuilds(), 1u); // the index vectors never changed
}

/// A ragged nest `for (int d = 0; d < D; ++d) for (int n = 0; n < (int)words[d].size(); ++n)
/// resample(d, words[d][n], (d + n + sweep) % topics, ...)` as rotor-cc emits it: the iterations
/// are the pairs (d, n), keys d and words[d][n] (k0 is d, `at` is n); the plan rotates over both.
void run_ragged(codegen::Inspection<2>& inspection, const std::vector<std::vector<int>>& words,
                Corpus& c, int sweep) {
  auto s = spec(Kind::rotation, {0, 1},
                {array("dt", Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}),
                 array("wt", Role::rotating, 1, true, {{1, 0, 0}, {-1, 0, 0}})});
  const auto bound = static_cast<int>(words.size());
  auto& iterations = inspection.ragged(
      bound,
      [&](std::int64_t d) {
        return static_cast<std::int64_t>(words[static_cast<std::size_t>(d)].size());
      },
      [&](std::int64_t d, std::int64_t) { return d; },
      [&](std::int64_t d, std::int64_t n) {
        return words[static_cast<std::size_t>(d)][static_cast<std::size_t>(n)];
      });
  std::tuple<> none;
  codegen::run_loop(s, iterations, codegen::iteration_keys<2>(), std::tie(c.dt, c.wt), none,
                    [&](const codegen::Iteration<2>& it, auto& dt, auto& wt) {
                      const int d = static_cast<int>(it.k0);
                      const int n = static_cast<int>(it.at);
                      resample(d, words[static_cast<std::size_t>(d)][static_cast<std::size_t>(n)],
                               (d + n + sweep) % Corpus::topics, dt, wt, Corpus::topics);
                    });
}

TEST(InspectorShapes, RaggedNestEqualsSerialReplay) {
  CaptureOrders capture;
  Corpus c(0), reference(0);
  std::vector<std::vector<int>> words(Corpus::docs);
  std::vector<std::pair<int, int>> pairs; // (d, n) in the serial loop's order
  for (int d = 0; d < Corpus::docs; ++d) {
    const int length = (d * 29) % 47; // ragged, document 0 empty
    for (int n = 0; n < length; ++n) {
      words[static_cast<std::size_t>(d)].push_back(static_cast<int>(mix(d * 1000u + n) % 37));
      pairs.emplace_back(d, n);
      for (Corpus* x : {&c, &reference}) {
        ++x->dt(d, (d + n) % Corpus::topics);
        ++x->wt(words[static_cast<std::size_t>(d)].back(), (d + n) % Corpus::topics);
      }
    }
  }
  codegen::Inspection<2> inspection;
  for (int sweep = 0; sweep < 3; ++sweep) {
    run_ragged(inspection, words, c, sweep);
    replay(pairs, last_order(), [&](std::pair<int, int>& p) {
      const auto [d, n] = p;
      resample(d, words[static_cast<std::size_t>(d)][static_cast<std::size_t>(n)],
               (d + n + sweep) % Corpus::topics, reference.dt, reference.wt, Corpus::topics);
    });
  }
  EXPECT_TRUE(bitwise_equal(c.dt, reference.dt));
  EXPECT_TRUE(bitwise_equal(c.wt, reference.wt));
  EXPECT_EQ(inspection.rebuilds(), 1u);
  const auto& iterations = detail::DatasetInternals::records(inspection.ragged(
      2, [](std::int64_t d) { return d == 0 ? 2 : -3; },
      [](std::int64_t d, std::int64_t) { return d; },
      [](std::int64_t d, std::int64_t n) { return 10 * d + n; }));
  if (detail::collective().size() == 1) { // one rank holds every iteration, in the loop's order
    ASSERT_EQ(iterations.size(), 2u);     // a negative row count is no iteration
    EXPECT_EQ(iterations[1].k0, 0);
    EXPECT_EQ(iterations[1].k1, 1);
    EXPECT_EQ(iterations[1].at, 1);
  }
  EXPECT_EQ(inspection.rebuilds(), 2u);
}

} // namespace
} // namespace rotor::test
