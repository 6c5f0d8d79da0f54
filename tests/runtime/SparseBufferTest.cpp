// Sparse worker buffers (issue 6): a worker's buffered array as a hash map of the rows it touched.
// The same loops run with dense copies and with sparse buffers must give bitwise equal arrays
// (sum merges in slot order), and the automatic choice must follow the measured density. Run at
// np 1, 2, 4 and threads 1, 2 with runtime_buffered_test.

#include "BufferedFlush.h"
#include "LoopTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace rotor::test {
namespace {

using codegen::Kind;
using codegen::Role;
using Choice = detail::BufferedSettings::Exchange;

struct Settings {
  Settings(std::int64_t every, int staleness, Choice buffer, Choice exchange = Choice::automatic) {
    auto& s = detail::buffered_settings();
    s.flush_every = every;
    s.staleness = staleness;
    s.worker_buffer = buffer;
    s.exchange = exchange;
  }
  ~Settings() { detail::buffered_settings() = detail::BufferedSettings{}; }
};

struct Item {
  std::int32_t id;
  std::int32_t key;
};

std::vector<Item> make_items(int n, std::int64_t keys) {
  std::vector<Item> out;
  for (int i = 0; i < n; ++i) {
    out.push_back({i, static_cast<std::int32_t>(mix(static_cast<std::uint64_t>(i)) %
                                                static_cast<std::uint64_t>(keys))});
  }
  return out;
}

/// A data-parallel loop over `names` (all buffered) at `line` (the density memory is per line).
codegen::LoopSpec buffered_spec(std::vector<const char*> names, int line) {
  std::vector<codegen::ArraySpec> arrays;
  for (const char* n : names) {
    arrays.push_back(array(n, Role::buffered, -1, true, {{-1, 0, 0}}));
  }
  codegen::LoopSpec s = spec(Kind::data_parallel, {}, std::move(arrays));
  s.line = line;
  return s;
}

// -- the buffer itself ---------------------------------------------------------------------------

TEST(SparseBuffer, ReadsSharedValuesAndKeepsOwnWrites) {
  DistArray<float, 1> shared({1 << 20});
  shared[7] = 2.5f;
  detail::SparseBuffer<float, 1> b(shared);
  EXPECT_EQ(b[7], 2.5f); // an untouched row reads the shared array
  float& first = b[7];
  for (std::int64_t i = 0; i < 5000; ++i) { // grows the table many times
    b[i * 131] += 1.0f;
  }
  first += 1.0f; // rows never move: the reference is still the buffer's element
  EXPECT_EQ(b[7], 3.5f);
  EXPECT_EQ(b[131], 1.0f);
  EXPECT_EQ(shared[7], 2.5f); // the shared array is untouched until a merge
  EXPECT_EQ(b.touched(), 5001u);
  b.clear();
  EXPECT_EQ(b.touched(), 0u);
  EXPECT_EQ(b[131], 0.0f);
}

TEST(SparseBuffer, TwoDimensionalRowsAreContiguous) {
  DistArray<double, 2> shared({1000, 3});
  shared(4, 2) = 1.0;
  detail::SparseBuffer<double, 2> b(shared);
  auto r = b.row(4);
  EXPECT_EQ(r.size(), 3);
  r[0] = 5.0;
  EXPECT_EQ(b(4, 0), 5.0);
  EXPECT_EQ(b(4, 2), 1.0);
  EXPECT_EQ(b.touched(), 1u); // one row, three elements
  EXPECT_EQ(b.cols(), 3);
}

// -- the same results as dense buffers -----------------------------------------------------------

/// Reads and writes of float elements (rounding makes the result depend on every value read):
/// a logistic-regression-like update. Runs with `buffer` and returns the arrays.
std::pair<DistArray<float, 1>, DistArray<double, 2>> run_updates(Choice buffer, std::int64_t every,
                                                                 Choice exchange, int line) {
  Settings settings(every, 0, buffer, exchange);
  auto items = make_items(4001, 1 << 17);
  Dataset<Item> data(items);
  DistArray<float, 1> w({1 << 17});
  DistArray<double, 2> h({4096, 4});
  w.fill_normal(0.f, 0.1f, 3);
  h.fill_uniform(-1.0, 1.0, 4);
  std::tuple<> none;
  codegen::run_loop(buffered_spec({"w", "h"}, line), data, codegen::keys(&Item::id), std::tie(w, h),
                    none, codegen::SparseCapable<0, 1>{}, [](const Item& it, auto& w, auto& h) {
                      const std::int64_t k = it.key, j = (it.key * 7 + 1) % (1 << 17);
                      const float g =
                          0.1f * w[k] - 0.03f * w[j] + 0.001f * static_cast<float>(it.id);
                      w[k] -= 0.5f * (g + 1e-3f * w[k]);
                      w[j] += 0.25f * g;
                      auto row = h.row(it.key % 4096);
                      row[it.id % 4] += 0.5 * row[(it.id + 1) % 4] + g;
                    });
  EXPECT_EQ(detail::buffered_stats().sparse_buffers, buffer == Choice::sparse ? 2 : 0);
  return {std::move(w), std::move(h)};
}

void expect_same_as_dense(std::int64_t every, Choice exchange, int line) {
  auto dense = run_updates(Choice::dense, every, exchange, line);
  auto sparse = run_updates(Choice::sparse, every, exchange, line);
  EXPECT_TRUE(bitwise_equal(dense.first, sparse.first)) << "flush every " << every;
  EXPECT_TRUE(bitwise_equal(dense.second, sparse.second)) << "flush every " << every;
}

TEST(SparseBuffer, SameAsDenseAtLoopEnd) {
  expect_same_as_dense(0, Choice::automatic, __LINE__);
}
TEST(SparseBuffer, SameAsDenseEveryNRecords) {
  expect_same_as_dense(64, Choice::automatic, __LINE__);
}
TEST(SparseBuffer, SameAsDenseWithSparseExchange) {
  expect_same_as_dense(0, Choice::sparse, __LINE__);
  expect_same_as_dense(100, Choice::sparse, __LINE__);
}

/// Own pending updates stay visible across flushes with s > 0 (the refresh re-adds them): a
/// counter read before each increment, as in BufferedTest, reads at least the worker's own count.
TEST(SparseBuffer, ReadsSeeOwnPendingUpdatesWithStaleness) {
  Settings settings(16, 2, Choice::sparse);
  const int n = 2001;
  auto items = make_items(n, 1);
  Dataset<Item> data(items);
  DistArray<std::int64_t, 1> counter({1}), seen({n});
  std::tuple<> none;
  codegen::run_loop(buffered_spec({"counter", "seen"}, __LINE__), data, codegen::keys(&Item::id),
                    std::tie(counter, seen), none, codegen::SparseCapable<0, 1>{},
                    [](const Item& it, auto& counter, auto& seen) {
                      seen[it.id] = counter[0] + 1;
                      counter[0] += 1;
                    });
  EXPECT_EQ(counter[0], n);
  // In each worker's contiguous share, the values read strictly increase (its own updates are
  // never lost from its view, whatever the merges add).
  std::int64_t breaks = 0;
  for (int i = 1; i < n; ++i) {
    breaks += seen[i] <= seen[i - 1] ? 1 : 0;
  }
  EXPECT_LT(breaks, detail::collective().size() * detail::session_threads());
}

// -- the automatic choice ------------------------------------------------------------------------

/// 3000 records over `keys` distinct keys of a `size`-element array, each adding 1 to `span`
/// consecutive elements from its key; returns the stats.
detail::BufferedStats run_touching(std::int64_t size, std::int64_t keys, bool capable, int line,
                                   std::int64_t span = 1) {
  auto items = make_items(3000, keys);
  Dataset<Item> data(items);
  DistArray<float, 1> w({size});
  std::tuple<> none;
  auto body = [size, span](const Item& it, auto& w) {
    for (std::int64_t j = 0; j < span; ++j) {
      w[(it.key * span + j) % size] += 1.0f;
    }
  };
  if (capable) {
    codegen::run_loop(buffered_spec({"w"}, line), data, codegen::keys(&Item::id), std::tie(w), none,
                      codegen::SparseCapable<0>{}, body);
  } else {
    codegen::run_loop(buffered_spec({"w"}, line), data, codegen::keys(&Item::id), std::tie(w), none,
                      body);
  }
  float total = 0;
  for (std::int64_t i = 0; i < size; ++i) {
    total += w[i];
  }
  EXPECT_EQ(total, 3000.0f * static_cast<float>(span));
  return detail::buffered_stats();
}

TEST(SparseBuffer, AutoChoosesSparseForLargeArraysTouchedThinly) {
  Settings settings(0, 0, Choice::automatic);
  const int line = __LINE__;
  const auto first = run_touching(1 << 20, 500, true, line);
  EXPECT_EQ(first.sparse_buffers, 0); // the first execution measures the density densely
  EXPECT_GT(first.worker_density, 0.0);
  EXPECT_LT(first.worker_density, 1.0 / 1000);
  const auto second = run_touching(1 << 20, 500, true, line);
  EXPECT_EQ(second.sparse_buffers, 1);
  // buffers of the touched rows only: far below one dense copy per worker
  EXPECT_LT(second.buffer_bytes, first.buffer_bytes / 10);
}

TEST(SparseBuffer, AutoStaysDenseForDenseOrSmallOrUnmarkedLoops) {
  Settings settings(0, 0, Choice::automatic);
  const int dense_line = __LINE__;
  // every worker touches over 1/4 of the rows (8 workers: 375 records x 64, ~30%)
  EXPECT_GT(run_touching(1 << 16, 1 << 16, true, dense_line, 64).worker_density, 0.25);
  EXPECT_EQ(run_touching(1 << 16, 1 << 16, true, dense_line, 64).sparse_buffers, 0);
  const int small_line = __LINE__;
  run_touching(1 << 12, 20, true, small_line); // thin but small: the dense copy is cheap
  EXPECT_EQ(run_touching(1 << 12, 20, true, small_line).sparse_buffers, 0);
  // Without rotor-cc's SparseCapable the body may need a real DistArray: never sparse.
  Settings forced(0, 0, Choice::sparse);
  EXPECT_EQ(run_touching(1 << 20, 500, false, __LINE__).sparse_buffers, 0);
}

TEST(SparseBuffer, FlagParses) {
  const detail::BufferedSettings saved = detail::buffered_settings();
  EXPECT_TRUE(detail::parse_buffered_flag("--rotor-worker-buffer", "sparse", true));
  EXPECT_EQ(detail::buffered_settings().worker_buffer, Choice::sparse);
  EXPECT_THROW(detail::parse_buffered_flag("--rotor-worker-buffer", "tree", true), SettingsError);
  detail::buffered_settings() = saved;
}

} // namespace
} // namespace rotor::test
