// The inspector (rotor/runtime/Inspector.h): a loop over a std::vector of records, run as
// rotor-cc emits it (codegen::Inspection + run_loop over the iteration dataset), equals a serial
// replay of its recorded order bitwise on every rank, including the records it writes, and the
// iteration dataset is rebuilt only when the keys change.
#include "LoopTestUtil.h"

#include "rotor/runtime/Inspector.h"

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

namespace rotor::test {
namespace {

using codegen::Kind;
using codegen::Role;

std::vector<Token> make_tokens(int n, int docs, int words, int topics, std::uint64_t seed) {
  std::vector<Token> out;
  for (int k = 0; k < n; ++k) {
    const std::uint64_t h = mix(seed * 7919u + static_cast<std::uint64_t>(k));
    out.push_back({static_cast<std::int32_t>(h % static_cast<std::uint64_t>(docs)),
                   static_cast<std::int32_t>((h >> 16) % static_cast<std::uint64_t>(words)),
                   static_cast<std::int32_t>((h >> 30) % static_cast<std::uint64_t>(topics))});
  }
  return out;
}

/// One token's LDA-shaped update (order-dependent: a new topic from the current counts).
template <class DT, class WT> void resample(Token& t, DT& dt, WT& wt, int topics) {
  --dt(t.doc, t.topic);
  --wt(t.word, t.topic);
  int best = 0;
  std::int64_t best_score = -1;
  for (int z = 0; z < topics; ++z) {
    const std::int64_t score = (dt(t.doc, z) + 1) * (wt(t.word, z) + 2) +
                               static_cast<std::int64_t>(mix(t.doc * 131 + t.word * 7 + z) % 3);
    if (score > best_score) {
      best_score = score;
      best = z;
    }
  }
  t.topic = best;
  ++dt(t.doc, t.topic);
  ++wt(t.word, t.topic);
}

struct Counts {
  DistArray<std::int32_t, 2> dt, wt;
  Counts(const std::vector<Token>& tokens, int docs, int words, int topics)
      : dt({docs, topics}), wt({words, topics}) {
    for (const Token& t : tokens) {
      ++dt(t.doc, t.topic);
      ++wt(t.word, t.topic);
    }
  }
};

/// The loop as rotor-cc rewrites `for (Token& t : tokens) resample(t, dt, wt, topics);`.
void run_inspected(codegen::Inspection<2>& inspection, std::vector<Token>& tokens, Counts& c,
                   int topics) {
  auto s = spec(Kind::rotation, {0, 1},
                {array("dt", Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}),
                 array("wt", Role::rotating, 1, true, {{1, 0, 0}, {-1, 0, 0}})});
  s.views = {"tokens"};
  auto&& range = tokens;
  auto& iterations = inspection.records(range, &Token::doc, &Token::word);
  std::tuple<> none;
  codegen::run_loop(s, iterations, codegen::iteration_keys<2>(), std::tie(c.dt, c.wt), none,
                    [&](const codegen::Iteration<2>& it, auto& dt, auto& wt) {
                      Token& t = range[static_cast<std::size_t>(it.at)];
                      resample(t, dt, wt, topics);
                    });
  inspection.share_written(range);
}

TEST(Inspector, VectorLoopWritingRecordsEqualsSerialReplay) {
  CaptureOrders capture;
  const int docs = 23, words = 41, topics = 5;
  std::vector<Token> tokens = make_tokens(3000, docs, words, topics, 3);
  std::vector<Token> serial = tokens;
  Counts counts(tokens, docs, words, topics), reference(serial, docs, words, topics);
  codegen::Inspection<2> inspection;
  for (int sweep = 0; sweep < 3; ++sweep) {
    run_inspected(inspection, tokens, counts, topics);
    replay(serial, last_order(),
           [&](Token& t) { resample(t, reference.dt, reference.wt, topics); });
  }
  EXPECT_TRUE(bitwise_equal(counts.dt, reference.dt));
  EXPECT_TRUE(bitwise_equal(counts.wt, reference.wt));
  std::size_t differing = 0;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    differing += std::memcmp(&tokens[i], &serial[i], sizeof(Token)) != 0 ? 1 : 0;
  }
  EXPECT_EQ(differing, 0u) << "tokens differ from the serial replay on rank "
                           << detail::collective().rank();
  // Topics are written, keys are not: the iteration dataset was built once.
  EXPECT_EQ(inspection.rebuilds(), 1u);
}

TEST(Inspector, ChangedKeysRebuildTheIterations) {
  const int docs = 7, words = 9, topics = 3;
  std::vector<Token> tokens = make_tokens(400, docs, words, topics, 5);
  Counts counts(tokens, docs, words, topics);
  codegen::Inspection<2> inspection;
  run_inspected(inspection, tokens, counts, topics);
  run_inspected(inspection, tokens, counts, topics);
  EXPECT_EQ(inspection.rebuilds(), 1u);
  // A key changes (serial code between loops, on every rank): the next run sees it.
  Token& moved = tokens[17];
  --counts.dt(moved.doc, moved.topic);
  moved.doc = (moved.doc + 1) % docs;
  ++counts.dt(moved.doc, moved.topic);
  run_inspected(inspection, tokens, counts, topics);
  EXPECT_EQ(inspection.rebuilds(), 2u);
  // A shorter vector: rebuilt again, and every remaining token is visited once.
  tokens.resize(100);
  Counts fresh(tokens, docs, words, topics);
  run_inspected(inspection, tokens, fresh, topics);
  EXPECT_EQ(inspection.rebuilds(), 3u);
  std::int64_t total = 0;
  for (std::int64_t i = 0; i < fresh.dt.size(); ++i) {
    total += fresh.dt.data()[i];
  }
  EXPECT_EQ(total, 100);
}

// The counts and row lengths an inspection keeps (Inspection::histogram, ragged_row_lengths):
// recomputed when the keys change, equal to a fresh count every time.
TEST(Inspector, KeptHistogramsFollowTheKeys) {
  std::vector<std::vector<int>> docs = {{3, 1}, {}, {1, 1, 2}};
  codegen::Inspection<2> inspection;
  const auto inspect = [&] {
    return inspection.ragged(
        static_cast<int>(docs.size()),
        [&](std::int64_t d) { return docs[static_cast<std::size_t>(d)].size(); },
        [](std::int64_t d, std::int64_t) { return d; },
        [&](std::int64_t d, std::int64_t n) {
          return docs[static_cast<std::size_t>(d)][static_cast<std::size_t>(n)];
        });
  };
  inspect();
  const auto k1 = &codegen::Iteration<2>::k1;
  EXPECT_EQ(inspection.histogram(k1), (std::vector<std::int64_t>{0, 3, 1, 1}));
  EXPECT_EQ(inspection.ragged_row_lengths(), (std::vector<std::int64_t>{2, 0, 3}));
  inspect(); // the same keys: kept
  EXPECT_EQ(inspection.rebuilds(), 1u);
  EXPECT_EQ(inspection.histogram(k1), (std::vector<std::int64_t>{0, 3, 1, 1}));
  docs[1] = {4, 4};
  docs[2].pop_back();
  inspect();
  EXPECT_EQ(inspection.rebuilds(), 2u);
  EXPECT_EQ(inspection.histogram(k1), (std::vector<std::int64_t>{0, 3, 0, 1, 2}));
  EXPECT_EQ(inspection.histogram(&codegen::Iteration<2>::k0), (std::vector<std::int64_t>{2, 2, 2}));
  EXPECT_EQ(inspection.ragged_row_lengths(), (std::vector<std::int64_t>{2, 2, 2}));
}

// The walk compares with the last run's iterations in place and keeps them from the first
// difference on: after a change in the middle, a longer or a shorter walk, the dataset holds
// exactly this walk's iterations (keys and `at`), in order.
TEST(Inspector, WalkKeepsEveryIterationAfterTheFirstDifference) {
  std::vector<std::vector<int>> docs = {{5, 6}, {7}, {8, 9, 10}};
  codegen::Inspection<2> inspection;
  const auto walk = [&] {
    const auto& records = detail::DatasetInternals::records(inspection.ragged(
        static_cast<int>(docs.size()),
        [&](std::int64_t d) { return docs[static_cast<std::size_t>(d)].size(); },
        [](std::int64_t d, std::int64_t) { return d; },
        [&](std::int64_t d, std::int64_t n) {
          return docs[static_cast<std::size_t>(d)][static_cast<std::size_t>(n)];
        }));
    std::vector<std::array<std::int64_t, 3>> out;
    for (const auto& it : records) {
      out.push_back({it.k0, it.k1, it.at});
    }
    return out;
  };
  const auto expected = [&] {
    std::vector<std::array<std::int64_t, 3>> out;
    for (std::size_t d = 0; d < docs.size(); ++d) {
      for (std::size_t n = 0; n < docs[d].size(); ++n) {
        out.push_back({static_cast<std::int64_t>(d), docs[d][n], static_cast<std::int64_t>(n)});
      }
    }
    return out;
  };
  EXPECT_EQ(walk(), expected());
  docs[1][0] = 70; // the middle
  EXPECT_EQ(walk(), expected());
  EXPECT_EQ(inspection.rebuilds(), 2u);
  docs[2].push_back(11); // longer, the same prefix
  EXPECT_EQ(walk(), expected());
  EXPECT_EQ(inspection.rebuilds(), 3u);
  docs[2].resize(1); // shorter, the same prefix
  EXPECT_EQ(walk(), expected());
  EXPECT_EQ(inspection.rebuilds(), 4u);
  EXPECT_EQ(walk(), expected()); // unchanged: kept
  EXPECT_EQ(inspection.rebuilds(), 4u);
}

// A nest read through a pointer chain, as rotor-cc emits it when every key is a row element
// (Inspection::ragged_rows): the same iterations as the per-pair walk (ragged), the same bytes
// noted, no row pointer read for a row of count 0 or less, and a changed word rebuilds.
struct ChainDoc {
  int length;
  const int* words;
};

std::vector<std::pair<std::uintptr_t, std::uintptr_t>>
merged(std::vector<std::pair<std::uintptr_t, std::uintptr_t>> ranges) {
  std::sort(ranges.begin(), ranges.end());
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> out;
  for (const auto& r : ranges) {
    if (!out.empty() && r.first <= out.back().second) {
      out.back().second = std::max(out.back().second, r.second);
    } else {
      out.push_back(r);
    }
  }
  return out;
}

std::vector<std::array<std::int64_t, 3>> iterations_of(Dataset<codegen::Iteration<2>>& d) {
  std::vector<std::array<std::int64_t, 3>> out;
  for (const auto& it : detail::DatasetInternals::records(d)) {
    out.push_back({it.k0, it.k1, it.at});
  }
  return out;
}

TEST(Inspector, RowReadsEqualThePerPairWalk) {
  std::vector<std::vector<int>> words = {{5, 6, 7}, {}, {8}, {9, 10, 11, 12}, {13, 14}};
  std::vector<ChainDoc> storage;
  for (const auto& w : words) {
    storage.push_back({static_cast<int>(w.size()), w.empty() ? nullptr : w.data()});
  }
  storage[1].length = -2; // no iteration, and its words pointer (nullptr) must not be read
  std::vector<ChainDoc*> docs;
  for (ChainDoc& d : storage) {
    docs.push_back(&d);
  }
  ChainDoc** chain = docs.data();
  const int count = static_cast<int>(docs.size());
  codegen::Inspection<2> per_pair, per_row;
  codegen::ChainReads pair_reads;
  const auto pairs = iterations_of(per_pair.ragged(
      count, [&](std::int64_t m) { return pair_reads.note(pair_reads.note(chain[m])->length); },
      [](std::int64_t m, std::int64_t) { return m; },
      [&](std::int64_t m, std::int64_t n) {
        return pair_reads.note(pair_reads.note(pair_reads.note(chain[m])->words)[n]);
      }));
  const auto pair_ranges = merged(pair_reads.ranges().ranges);
  const auto walk_rows = [&](codegen::ChainReads& reads) {
    return iterations_of(per_row.ragged_rows(
        reads, count, [&](std::int64_t m) { return reads.note(reads.note(chain[m])->length); },
        [&](std::int64_t m) { return reads.note(reads.note(chain[m])->words); }));
  };
  {
    codegen::ChainReads row_reads;
    EXPECT_EQ(walk_rows(row_reads), pairs);
    EXPECT_EQ(merged(row_reads.ranges().ranges), pair_ranges);
  }
  ASSERT_EQ(pairs.size(), 10u);
  EXPECT_EQ(pairs[3], (std::array<std::int64_t, 3>{2, 8, 0}));
  EXPECT_EQ(per_row.rebuilds(), 1u);
  words[3][2] = 40;
  codegen::ChainReads again;
  const auto changed = walk_rows(again);
  EXPECT_EQ(per_row.rebuilds(), 2u);
  EXPECT_EQ(changed[6], (std::array<std::int64_t, 3>{3, 40, 2}));
}

// ragged_rows compares a row's bytes with the walk that built the dataset (its signature) and
// falls back to the per-iteration walk from the first row that differs: after each kind of change
// (a word in the middle, a row longer or shorter, a row emptied or refilled, rows added or
// removed at the end) the dataset holds exactly a fresh walk's iterations, a walk over unchanged
// rows keeps it, and the bytes noted are those of the rows read.
TEST(Inspector, RowSignatureFollowsEveryChange) {
  std::vector<std::vector<int>> words = {{5, 6, 7}, {1}, {8}, {9, 10, 11, 12}, {13, 14}};
  codegen::Inspection<2> per_row;
  const auto walk = [&](std::uint64_t rebuilds_after) {
    std::vector<ChainDoc> storage;
    for (const auto& w : words) {
      storage.push_back({static_cast<int>(w.size()), w.empty() ? nullptr : w.data()});
    }
    std::vector<ChainDoc*> docs;
    for (ChainDoc& d : storage) {
      docs.push_back(&d);
    }
    ChainDoc** chain = docs.data();
    codegen::ChainReads reads;
    const auto got = iterations_of(per_row.ragged_rows(
        reads, static_cast<int>(docs.size()),
        [&](std::int64_t m) { return reads.note(reads.note(chain[m])->length); },
        [&](std::int64_t m) { return reads.note(reads.note(chain[m])->words); }));
    codegen::Inspection<2> fresh;
    const auto expected = iterations_of(fresh.ragged(
        static_cast<int>(docs.size()), [&](std::int64_t m) { return chain[m]->length; },
        [](std::int64_t m, std::int64_t) { return m; },
        [&](std::int64_t m, std::int64_t n) { return chain[m]->words[n]; }));
    EXPECT_EQ(got, expected);
    EXPECT_EQ(per_row.rebuilds(), rebuilds_after);
    std::size_t noted = 0; // every row's words and each doc's two fields, once
    for (const auto& r : reads.ranges().ranges) {
      noted += r.second - r.first;
    }
    std::size_t expected_bytes = docs.size() * sizeof(int); // the lengths
    for (const auto& w : words) {
      expected_bytes += w.empty() ? 0 : sizeof(const int*) + w.size() * sizeof(int);
    }
    EXPECT_EQ(noted, expected_bytes + docs.size() * sizeof(ChainDoc*));
  };
  walk(1);
  walk(1); // unchanged
  words[3][2] = 40;
  walk(2);
  walk(2);
  words[1].push_back(2);
  walk(3);
  words[3].pop_back();
  walk(4);
  words[2].clear();
  walk(5);
  walk(5);
  words[2] = {8, 80};
  walk(6);
  words.push_back({15});
  walk(7);
  words.resize(3);
  walk(8);
  walk(8);
  words[0][0] = 50; // the first row
  walk(9);
  words[2][1] = 81; // the last row's last word
  walk(10);
  walk(10);
}

} // namespace
} // namespace rotor::test
