// Managed communication (issue 6, Bösen): a flush sends the largest changes first within a byte
// budget, holds the rest back for at most s flushes, and the loop's end still has the full sum.
// Run at np 1, 2, 4 and threads 1, 2 with runtime_buffered_test.

#include "ManagedComm.h"
#include "BufferedFlush.h"
#include "BufferedMerge.h"
#include "LoopTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

namespace rotor::test {
namespace {

using codegen::Kind;
using codegen::Role;
using Choice = detail::BufferedSettings::Exchange;

TEST(ManagedComm, ChoosesDueThenLargestWithinBudget) {
  std::vector<detail::SendCandidate> c = {{0.5, 10, false, false},
                                          {3.0, 11, false, false},
                                          {0.1, 12, true, false},
                                          {2.0, 13, false, false},
                                          {2.0, 9, false, false}};
  detail::choose_sends(c, 3); // the due row, then 3.0, then 2.0 (lower key of the tie)
  std::vector<bool> sent;
  for (const auto& x : c) {
    sent.push_back(x.send);
  }
  EXPECT_EQ(sent, (std::vector<bool>{false, true, true, false, true}));
}

/// One worker's buffer, driven flush by flush without the engine: its deltas are -(i % 9) - i /
/// 1000 (all distinct magnitudes). Round 1 must carry exactly the `budget` largest; the view keeps
/// the rest; every held row is out by flush 1 + hold; the array then equals the full merge.
template <class Buffer> void expect_largest_first(Buffer& worker, DistArray<float, 1>& array) {
  const std::int64_t n = array.size();
  const int budget = 10, hold = 2;
  std::vector<float> change(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    change[static_cast<std::size_t>(i)] = -static_cast<float>(i % 9) - static_cast<float>(i) / 1000;
  }
  std::vector<float> order = change;
  std::sort(order.begin(), order.end()); // most negative = largest magnitude first
  void* buffer = &worker;
  std::unique_ptr<detail::BufferedMerge> made(
      detail::make_buffered_merge(array, &buffer, 1, !std::is_same_v<Buffer, DistArray<float, 1>>));
  detail::BufferedMerge& merge = *made;
  merge.set_workers(1);
  merge.set_managed(budget * (8 + 4), hold);
  merge.start_flushing(hold + 1);
  for (std::int64_t i = 0; i < n; ++i) {
    worker[i] += change[static_cast<std::size_t>(i)];
  }
  auto flush = [&](std::int64_t clock, bool final) {
    merge.take(0, static_cast<int>(clock % (hold + 1)), clock, final);
    merge.prepare_round({static_cast<int>(clock % (hold + 1))}, false);
    merge.apply();
    merge.refresh(0, {});
  };
  flush(1, false);
  int sent = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const float a = array[i];
    if (a != 0) {
      ++sent;
      EXPECT_EQ(a, change[static_cast<std::size_t>(i)]);
      EXPECT_LE(a, order[budget - 1]) << "element " << i << " went before a larger change";
    }
    EXPECT_EQ(worker[i], change[static_cast<std::size_t>(i)]) << "the view lost a held change";
  }
  EXPECT_EQ(sent, budget);
  flush(2, false); // the next 10
  int sent2 = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    sent2 += array[i] != 0 ? 1 : 0;
  }
  EXPECT_EQ(sent2, 2 * budget);
  flush(3, false); // everything first held at flush 1 is due (1 + hold)
  for (std::int64_t i = 0; i < n; ++i) {
    EXPECT_EQ(array[i], change[static_cast<std::size_t>(i)]);
  }
  EXPECT_GT(merge.held_rows(), 0);
}

TEST(ManagedComm, DenseBufferSendsLargestFirst) {
  DistArray<float, 1> array({500});
  DistArray<float, 1> copy(array);
  expect_largest_first(copy, array);
}

TEST(ManagedComm, SparseBufferSendsLargestFirst) {
  DistArray<float, 1> array({500});
  detail::SparseBuffer<float, 1> buffer(array);
  expect_largest_first(buffer, array);
}

// -- through the engine: the loop's end has the full merge ---------------------------------------

struct Item {
  std::int32_t id;
  std::int32_t key;
};

void expect_exact_sums(Choice buffer, std::int64_t budget, int staleness) {
  auto& s = detail::buffered_settings();
  s.flush_every = 30;
  s.staleness = staleness;
  s.worker_buffer = buffer;
  s.managed_bytes = budget;
  std::vector<Item> items;
  for (int i = 0; i < 3001; ++i) {
    items.push_back({i, static_cast<std::int32_t>(mix(static_cast<std::uint64_t>(i)) % 997)});
  }
  Dataset<Item> data(items);
  DistArray<double, 1> sums({997}), expect({997});
  auto body = [](const Item& it, auto& sums) {
    sums[it.key] += 0.25 * (it.id % 8); // exact in binary: any grouping gives the same sum
  };
  codegen::LoopSpec sp =
      spec(Kind::data_parallel, {}, {array("sums", Role::buffered, -1, true, {{-1, 0, 0}})});
  sp.line = __LINE__;
  std::tuple<> none;
  codegen::run_loop(sp, data, codegen::keys(&Item::id), std::tie(sums), none,
                    codegen::SparseCapable<0>{}, body);
  const detail::BufferedStats st = detail::buffered_stats();
  detail::buffered_settings() = detail::BufferedSettings{};
  for (const Item& it : items) {
    body(it, expect);
  }
  EXPECT_TRUE(bitwise_equal(sums, expect)) << "budget " << budget << ", s " << staleness;
  if (st.rounds > 1 && staleness > 0) { // flushes ran (not merged at the loop's end only)
    EXPECT_GT(st.held_rows, 0);
  }
  if (staleness == 0) {
    EXPECT_EQ(st.held_rows, 0); // nothing may wait: every change is due at once
  }
}

TEST(ManagedComm, LoopEndEqualsFullMerge) {
  for (Choice b : {Choice::dense, Choice::sparse}) {
    expect_exact_sums(b, 64, 2);
    expect_exact_sums(b, 16, 1);
    expect_exact_sums(b, 64, 0);
  }
}

TEST(ManagedComm, FlagParses) {
  const detail::BufferedSettings saved = detail::buffered_settings();
  EXPECT_TRUE(detail::parse_buffered_flag("--rotor-managed-comm", "65536", true));
  EXPECT_EQ(detail::buffered_settings().managed_bytes, 65536);
  EXPECT_THROW(detail::parse_buffered_flag("--rotor-managed-comm", "-1", true), SettingsError);
  detail::buffered_settings() = saved;
}

} // namespace
} // namespace rotor::test
