// Buffered arrays in multi-step plans (issue 6): with --rotor-flush-every a rotation loop merges
// its buffered arrays after every step of its schedule, so a worker sees every worker's changes
// of the earlier steps (LDA's topic totals), and the loop's end still has the exact sum. Run at
// np 1, 2, 4 and threads 1, 2 with runtime_buffered_test.

#include "BufferedFlush.h"
#include "LoopTestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace rotor::test {
namespace {

using codegen::Kind;
using codegen::Role;

struct Occurrence {
  std::int32_t id;
  std::int32_t doc;
  std::int32_t word;
};

struct Outcome {
  std::int64_t max_read = 0; ///< the largest counter value any record read
  std::int64_t rounds = 0;
};

/// A rotation over (doc, word): the body reads a buffered counter before adding 1 to it and adds
/// exact amounts to a buffered per-word array (checked against the serial sums).
Outcome run_rotation(std::int64_t every) {
  detail::buffered_settings().flush_every = every;
  const int n = 4000;
  std::vector<Occurrence> recs;
  for (int i = 0; i < n; ++i) {
    const std::uint64_t h = mix(static_cast<std::uint64_t>(i));
    recs.push_back(
        {i, static_cast<std::int32_t>(h % 97), static_cast<std::int32_t>((h >> 20) % 89)});
  }
  Dataset<Occurrence> data(recs);
  DistArray<std::int64_t, 1> counter({1});
  DistArray<double, 1> per_word({89}), expect({89});
  std::vector<std::int64_t> seen(static_cast<std::size_t>(n), 0);
  auto s = spec(Kind::rotation, {0, 1},
                {array("counter", Role::buffered, -1, true, {{-1, 0, 0}}),
                 array("per_word", Role::buffered, -1, true, {{-1, 0, 0}})});
  s.line = __LINE__;
  std::tuple<> none;
  auto body = [&seen](const Occurrence& o, auto& counter, auto& per_word) {
    seen[static_cast<std::size_t>(o.id)] = counter[0];
    counter[0] += 1;
    per_word[o.word] += 0.25 * (o.id % 8); // exact in binary: any grouping gives the same sum
  };
  codegen::run_loop(s, data, codegen::keys(&Occurrence::doc, &Occurrence::word),
                    std::tie(counter, per_word), none, body);
  Outcome out;
  out.rounds = detail::buffered_stats().rounds;
  detail::buffered_settings() = detail::BufferedSettings{};
  EXPECT_EQ(counter[0], n);
  for (const Occurrence& o : recs) {
    expect[o.word] += 0.25 * (o.id % 8);
  }
  EXPECT_TRUE(bitwise_equal(per_word, expect));
  // seen[] is written on the rank that ran the record: the largest over ranks
  std::int64_t local = *std::max_element(seen.begin(), seen.end());
  std::vector<std::size_t> offs;
  std::vector<char> all = detail::collective().allgatherv(&local, sizeof local, offs);
  for (int r = 0; r < detail::collective().size(); ++r) {
    std::int64_t v = 0;
    std::memcpy(&v, all.data() + offs[static_cast<std::size_t>(r)], sizeof v);
    out.max_read = std::max(out.max_read, v);
  }
  return out;
}

TEST(StepMerge, RotationMergesAfterEveryStep) {
  const int workers = detail::collective().size() * detail::session_threads();
  const Outcome at_end = run_rotation(0);
  const Outcome stepped = run_rotation(1000);
  EXPECT_EQ(at_end.rounds, 1);
  if (workers < 2) {
    return; // one worker, one step: nothing to merge between steps
  }
  EXPECT_GT(stepped.rounds, 1); // one merge after each of the schedule's steps (>= W)
  // Merged only at the end, a worker reads just its own records (about n / W <= n / 2); merged
  // after every step, a worker of the last of S >= 2 steps reads the records of all earlier
  // steps of every worker (about n (S - 1) / S) plus its own.
  EXPECT_LT(at_end.max_read, 4000 * 6 / 10);
  EXPECT_GT(stepped.max_read, 4000 * 6 / 10);
}

} // namespace
} // namespace rotor::test
