// Buffered arrays (issue 6): flush every N records, bounded staleness (SSP), custom apply and the
// sparse exchange, driven like rotor-cc output. Run at np 1, 2, 4 and threads 1, 2: every check
// holds for any worker count.

#include "BufferedFlush.h"
#include "LoopTestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <thread>
#include <vector>

namespace rotor::test {
namespace {

using codegen::Kind;
using codegen::Role;
using detail::BufferedSettings;
using detail::session_threads;

int session_ranks() {
  return detail::collective().size();
}

/// Sets the buffered settings for one test and restores the defaults after it.
struct WithSettings {
  explicit WithSettings(std::int64_t every, int staleness,
                        BufferedSettings::Exchange exchange = BufferedSettings::Exchange::automatic,
                        bool events = false) {
    auto& s = detail::buffered_settings();
    s.flush_every = every;
    s.staleness = staleness;
    s.exchange = exchange;
    s.record_events = events;
    detail::buffered_events().clear();
  }
  ~WithSettings() { detail::buffered_settings() = BufferedSettings{}; }
};

struct Item {
  std::int32_t id;
  std::int32_t key;
};

std::vector<Item> make_items(int n, int keys) {
  std::vector<Item> out;
  for (int i = 0; i < n; ++i) {
    out.push_back({i, static_cast<std::int32_t>(mix(static_cast<std::uint64_t>(i)) %
                                                static_cast<std::uint64_t>(keys))});
  }
  return out;
}

codegen::LoopSpec buffered_spec(std::vector<const char*> names) {
  std::vector<codegen::ArraySpec> arrays;
  for (const char* n : names) {
    arrays.push_back(array(n, Role::buffered, -1, true, {{-1, 0, 0}}));
  }
  return spec(Kind::data_parallel, {}, std::move(arrays));
}

std::int64_t all_ranks_sum(std::int64_t v) {
  detail::collective().allreduce_sum(&v, 1);
  return v;
}

// -- sum merge -----------------------------------------------------------------------------------

void expect_histogram_exact(std::int64_t every, int staleness, BufferedSettings::Exchange ex) {
  WithSettings settings(every, staleness, ex);
  auto items = make_items(3001, 37);
  Dataset<Item> data(items);
  DistArray<std::int64_t, 1> hist({37}), expect({37});
  DistArray<double, 1> sums({37}), expect_sums({37});
  hist[3] = 1000;
  expect[3] = 1000;
  auto body = [](const Item& it, auto& hist, auto& sums) {
    hist[it.key] += 1;
    sums[it.key] += 0.25 * (it.id % 8); // exact in binary: any grouping gives the same sum
  };
  std::tuple<> none;
  codegen::run_loop(buffered_spec({"hist", "sums"}), data, codegen::keys(&Item::id),
                    std::tie(hist, sums), none, body);
  for (const Item& it : items) {
    body(it, expect, expect_sums);
  }
  EXPECT_TRUE(bitwise_equal(hist, expect));
  EXPECT_TRUE(bitwise_equal(sums, expect_sums));
  if (every > 0) {
    EXPECT_GE(detail::buffered_stats().rounds,
              3001 / (every * session_ranks() * session_threads()));
  }
}

TEST(Buffered, SumMergeAtLoopEnd) {
  expect_histogram_exact(0, 0, BufferedSettings::Exchange::automatic);
}
TEST(Buffered, SumMergeEveryNRecords) {
  expect_histogram_exact(50, 0, BufferedSettings::Exchange::automatic);
}
TEST(Buffered, SumMergeWithStaleness) {
  expect_histogram_exact(40, 1, BufferedSettings::Exchange::automatic);
  expect_histogram_exact(40, 4, BufferedSettings::Exchange::automatic);
}
TEST(Buffered, SumMergeSparseExchange) {
  expect_histogram_exact(0, 0, BufferedSettings::Exchange::sparse);
  expect_histogram_exact(64, 1, BufferedSettings::Exchange::sparse);
}

TEST(Buffered, FewerRecordsThanWorkers) {
  WithSettings settings(2, 1);
  auto items = make_items(3, 4);
  Dataset<Item> data(items);
  DistArray<std::int64_t, 1> hist({4}), expect({4});
  std::tuple<> none;
  auto body = [](const Item& it, auto& hist) { hist[it.key] += 1; };
  codegen::run_loop(buffered_spec({"hist"}), data, codegen::keys(&Item::id), std::tie(hist), none,
                    body);
  for (const Item& it : items) {
    body(it, expect);
  }
  EXPECT_TRUE(bitwise_equal(hist, expect));
}

// -- reads: own pending updates, then the merged values ------------------------------------------

/// Every record reads a shared counter before adding 1 to it. With s = 0 the worker at its j-th
/// record (0-based) must read sum_h min(records_h, N * floor(j / N)) + (j mod N): every worker's
/// first k flushes merged, plus its own pending updates.
TEST(Buffered, ReadsSeeOwnPendingThenMergedValues) {
  const std::int64_t every = 25;
  WithSettings settings(every, 0);
  const int n = 1003;
  auto items = make_items(n, 1);
  Dataset<Item> data(items);
  DistArray<std::int64_t, 1> counter({1});
  DistArray<std::int64_t, 1> seen({n}); // one writer per element: merged exactly
  std::tuple<> none;
  codegen::run_loop(buffered_spec({"counter", "seen"}), data, codegen::keys(&Item::id),
                    std::tie(counter, seen), none, [](const Item& it, auto& counter, auto& seen) {
                      seen[it.id] = counter[0] + 1; // +1: 0 means "not run"
                      counter[0] += 1;
                    });
  EXPECT_EQ(counter[0], n);
  // Workers' shares are contiguous runs of ids that start where a record read 0 (+1).
  std::vector<std::int64_t> starts;
  for (int i = 0; i < n; ++i) {
    ASSERT_GT(seen[i], 0) << "record " << i << " did not run";
    if (seen[i] == 1) {
      starts.push_back(i);
    }
  }
  ASSERT_FALSE(starts.empty());
  EXPECT_EQ(starts[0], 0);
  std::vector<std::int64_t> sizes;
  for (std::size_t w = 0; w < starts.size(); ++w) {
    sizes.push_back((w + 1 < starts.size() ? starts[w + 1] : n) - starts[w]);
  }
  EXPECT_LE(static_cast<int>(starts.size()), session_ranks() * session_threads());
  for (std::size_t w = 0; w < starts.size(); ++w) {
    for (std::int64_t j = 0; j < sizes[w]; ++j) {
      const std::int64_t k = j / every;
      std::int64_t expect = j % every;
      for (std::int64_t s : sizes) {
        expect += std::min(s, every * k);
      }
      ASSERT_EQ(seen[starts[w] + j] - 1, expect) << "worker share " << w << ", record " << j;
    }
  }
}

/// With s > 0 a worker at its j-th record reads j (all its own updates, once) plus at least the
/// other workers' first k - s flushes (k = floor(j / N)) and at most their first k + s: SSP bounds
/// staleness from below, and no worker is more than s flushes ahead. Rounds are merged as they
/// are published, so a read may include a faster worker's newer flushes (observed: k + 1).
void expect_stale_reads(int s) {
  const std::int64_t every = 20;
  WithSettings settings(every, s);
  const int n = 1601;
  auto items = make_items(n, 1);
  Dataset<Item> data(items);
  DistArray<std::int64_t, 1> counter({1});
  DistArray<std::int64_t, 1> seen({n});
  std::tuple<> none;
  codegen::run_loop(buffered_spec({"counter", "seen"}), data, codegen::keys(&Item::id),
                    std::tie(counter, seen), none, [](const Item& it, auto& counter, auto& seen) {
                      if (it.id < 100) {
                        std::this_thread::sleep_for(std::chrono::microseconds(100));
                      }
                      seen[it.id] = counter[0] + 1;
                      counter[0] += 1;
                    });
  EXPECT_EQ(counter[0], n);
  std::vector<std::int64_t> starts;
  for (int i = 0; i < n; ++i) {
    if (seen[i] == 1) {
      starts.push_back(i);
    }
  }
  std::vector<std::int64_t> sizes;
  for (std::size_t w = 0; w < starts.size(); ++w) {
    sizes.push_back((w + 1 < starts.size() ? starts[w + 1] : n) - starts[w]);
  }
  for (std::size_t w = 0; w < starts.size(); ++w) {
    for (std::int64_t j = 0; j < sizes[w]; ++j) {
      const std::int64_t k = j / every;
      const std::int64_t others = seen[starts[w] + j] - 1 - j;
      auto others_after = [&](std::int64_t m) {
        std::int64_t total = 0;
        for (std::size_t h = 0; h < sizes.size(); ++h) {
          total += h == w ? 0 : std::min(sizes[h], every * std::max<std::int64_t>(0, m));
        }
        return total;
      };
      const bool ok = others >= others_after(k - s) && others <= others_after(k + s);
      ASSERT_TRUE(ok) << "worker share " << w << " of " << sizes.size() << " (" << sizes[w]
                      << " records), record " << j << " saw " << others
                      << " of the other workers' updates (s = " << s << ", ranks "
                      << session_ranks() << ", threads " << session_threads() << ")";
    }
  }
}

TEST(Buffered, StaleReadsSeeOwnUpdatesOnceAndABoundedPrefix) {
  expect_stale_reads(1);
  expect_stale_reads(3);
}

// -- custom apply --------------------------------------------------------------------------------

/// apply: value += 2 * delta (and counts its calls per element): a non-sum merge whose result is
/// known in closed form for any flush grouping.
void expect_scaled_apply(std::int64_t every, BufferedSettings::Exchange ex) {
  WithSettings settings(every, 0, ex);
  auto items = make_items(2000, 29);
  Dataset<Item> data(items);
  DistArray<std::int64_t, 1> hist({29}), expect({29});
  hist[1] = 7;
  expect[1] = 7;
  std::vector<std::int64_t> calls(29, 0);
  buffered_apply(hist, [&](std::int64_t& value, std::int64_t delta, std::int64_t i) {
    value += 2 * delta;
    ++calls[static_cast<std::size_t>(i)];
  });
  std::tuple<> none;
  codegen::run_loop(buffered_spec({"hist"}), data, codegen::keys(&Item::id), std::tie(hist), none,
                    [](const Item& it, auto& hist) { hist[it.key] += 1; });
  buffered_sum(hist);
  for (const Item& it : items) {
    expect[it.key] += 2;
  }
  EXPECT_TRUE(bitwise_equal(hist, expect));
  const auto rounds = static_cast<std::int64_t>(detail::buffered_stats().rounds);
  for (std::int64_t c : calls) {
    EXPECT_GE(c, 1);
    EXPECT_LE(c, rounds); // once per changed element and flush
  }
}

TEST(Buffered, CustomApplyAtLoopEnd) {
  expect_scaled_apply(0, BufferedSettings::Exchange::dense);
}
TEST(Buffered, CustomApplyEveryNRecords) {
  expect_scaled_apply(30, BufferedSettings::Exchange::dense);
  expect_scaled_apply(30, BufferedSettings::Exchange::sparse);
}

/// AdaGrad-style apply (state in a side array, float): two runs give bitwise the same model.
TEST(Buffered, AdagradApplyIsDeterministic) {
  auto run_once = [] {
    WithSettings settings(16, 0);
    auto items = make_items(1500, 64);
    Dataset<Item> data(items);
    DistArray<float, 1> w({64}), g2({64});
    w.fill(0.5f);
    g2.fill(1e-6f);
    buffered_apply(w, [&g2](float& value, float delta, std::int64_t i) {
      g2[i] += delta * delta;
      value += 0.1f * delta / std::sqrt(g2[i]);
    });
    std::tuple<> none;
    codegen::run_loop(buffered_spec({"w"}), data, codegen::keys(&Item::id), std::tie(w), none,
                      [](const Item& it, auto& w) { w[it.key] -= 0.01f * (w[it.key] - 0.1f); });
    buffered_sum(w);
    return w;
  };
  DistArray<float, 1> a = run_once();
  DistArray<float, 1> b = run_once();
  EXPECT_TRUE(bitwise_equal(a, b));
  EXPECT_NE(a[0], 0.5f);
}

/// buffered_mean: every merge adds the workers' summed changes divided by ranks x threads (a
/// power of two here, so the result is exact).
TEST(Buffered, MeanMergeDividesByTheWorkers) {
  for (std::int64_t every : {std::int64_t{0}, std::int64_t{25}}) {
    WithSettings settings(every, 0);
    auto items = make_items(1000, 10);
    Dataset<Item> data(items);
    DistArray<double, 1> w({10}), expect({10});
    buffered_mean(w);
    std::tuple<> none;
    codegen::run_loop(buffered_spec({"w"}), data, codegen::keys(&Item::id), std::tie(w), none,
                      [](const Item& it, auto& w) { w[it.key] += 1.0; });
    buffered_sum(w);
    const double workers = session_ranks() * session_threads();
    for (const Item& it : items) {
      expect[it.key] += 1.0 / workers;
    }
    EXPECT_TRUE(bitwise_equal(w, expect)) << "flush every " << every;
  }
}

TEST(Buffered, ApplyOfAnotherTypeIsNotUsedAfterTheArrayMoves) {
  auto items = make_items(100, 5);
  Dataset<Item> data(items);
  auto hist = std::make_unique<DistArray<std::int64_t, 1>>(DistArray<std::int64_t, 1>::Shape{5});
  buffered_apply(*hist, [](std::int64_t& v, std::int64_t d) { v += 100 * d; });
  hist = std::make_unique<DistArray<std::int64_t, 1>>(
      DistArray<std::int64_t, 1>::Shape{6}); // maybe the same address
  std::tuple<> none;
  codegen::run_loop(buffered_spec({"hist"}), data, codegen::keys(&Item::id), std::tie(*hist), none,
                    [](const Item& it, auto& h) { h[it.key] += 1; });
  std::int64_t total = 0;
  for (std::int64_t i = 0; i < hist->size(); ++i) {
    total += (*hist)[i];
  }
  EXPECT_EQ(total, 100);
}

// -- staleness bound (instrumented) -------------------------------------------------------------

/// Every "resumed after flush c" event of any worker must come after every other worker's
/// min(c - s, its last) publishes (timestamps on one machine-wide clock). Worker 0 is slow, so
/// the others do run ahead when s > 0.
void expect_staleness_bound(int s) {
  WithSettings settings(10, s, BufferedSettings::Exchange::automatic, true);
  auto items = make_items(1200, 16);
  Dataset<Item> data(items);
  DistArray<std::int64_t, 1> hist({16}), expect({16});
  std::tuple<> none;
  codegen::run_loop(buffered_spec({"hist"}), data, codegen::keys(&Item::id), std::tie(hist), none,
                    [](const Item& it, auto& hist) {
                      if (it.id < 60) {
                        std::this_thread::sleep_for(std::chrono::microseconds(300));
                      }
                      hist[it.key] += 1;
                    });
  for (const Item& it : items) {
    expect[it.key] += 1;
  }
  EXPECT_TRUE(bitwise_equal(hist, expect));
  const auto& mine = detail::buffered_events();
  std::vector<std::size_t> offs;
  std::vector<char> bytes = detail::collective().allgatherv(
      mine.data(), mine.size() * sizeof(detail::BufferedEvent), offs);
  std::vector<detail::BufferedEvent> all(bytes.size() / sizeof(detail::BufferedEvent));
  std::memcpy(all.data(), bytes.data(), bytes.size());
  std::map<int, std::vector<std::int64_t>> publishes; // worker -> publish times by clock
  for (const auto& e : all) {
    if (e.kind == 0) {
      auto& p = publishes[e.worker];
      if (static_cast<std::int64_t>(p.size()) < e.clock) {
        p.resize(static_cast<std::size_t>(e.clock), -1);
      }
      p[static_cast<std::size_t>(e.clock - 1)] = e.ns;
    }
  }
  ASSERT_EQ(static_cast<int>(publishes.size()), session_ranks() * session_threads());
  std::int64_t resumes = 0, max_lead = 0;
  for (const auto& e : all) {
    if (e.kind != 1) {
      continue;
    }
    ++resumes;
    std::int64_t slowest = e.clock;
    for (const auto& [w, times] : publishes) {
      std::int64_t done = 0;
      for (std::int64_t t : times) {
        done += t >= 0 && t <= e.ns ? 1 : 0;
      }
      const auto last = static_cast<std::int64_t>(times.size());
      ASSERT_GE(done, std::min<std::int64_t>(e.clock - s, last))
          << "worker " << e.worker << " resumed after flush " << e.clock << " while worker " << w
          << " had published " << done << " of " << last << " (s = " << s << ")";
      if (done < last) {
        slowest = std::min(slowest, done);
      }
    }
    max_lead = std::max(max_lead, e.clock - slowest);
  }
  EXPECT_GT(resumes, 0);
  EXPECT_LE(max_lead, s);
  if (session_ranks() * session_threads() > 1 && s > 0) {
    EXPECT_GE(max_lead, 1) << "no worker ran ahead: the test did not exercise the bound";
  }
}

TEST(Buffered, StalenessBoundIsNeverExceeded) {
  expect_staleness_bound(0);
  expect_staleness_bound(1);
  expect_staleness_bound(4);
}

// -- sparse exchange sends only touched keys -----------------------------------------------------

TEST(Buffered, SparseExchangeSendsOnlyTouchedKeys) {
  WithSettings settings(0, 0, BufferedSettings::Exchange::sparse);
  const std::int64_t size = 1 << 20;
  const int n = 3000; // every record touches its own key: n distinct keys in all
  std::vector<Item> items;
  for (int i = 0; i < n; ++i) {
    items.push_back({i, static_cast<std::int32_t>((static_cast<std::int64_t>(i) * 7919) % size)});
  }
  Dataset<Item> data(items);
  DistArray<float, 1> w({size}), expect({size});
  std::tuple<> none;
  auto body = [](const Item& it, auto& w) { w[it.key] += 1.5f; };
  codegen::run_loop(buffered_spec({"w"}), data, codegen::keys(&Item::id), std::tie(w), none, body);
  for (const Item& it : items) {
    body(it, expect);
  }
  EXPECT_TRUE(bitwise_equal(w, expect));
  const auto& st = detail::buffered_stats();
  EXPECT_EQ(st.sparse_merges, 1);
  EXPECT_EQ(all_ranks_sum(st.pushed_entries), n);
  const std::int64_t ranks = session_ranks();
  const std::int64_t pair = 8 + sizeof(float);
  // pushes to other owners plus every owner's sums to the other ranks
  EXPECT_LE(all_ranks_sum(st.bytes_sent), n * pair * ranks);
  if (ranks > 1) {
    EXPECT_GE(all_ranks_sum(st.bytes_sent), n * pair * (ranks - 1)); // the pull alone
    EXPECT_LT(all_ranks_sum(st.bytes_sent), size * static_cast<std::int64_t>(sizeof(float)) / 10);
  }
}

TEST(Buffered, AutoExchangeTurnsSparseForFewTouchedElements) {
  WithSettings settings(20, 0);
  const std::int64_t size = 1 << 16;
  auto items = make_items(2000, 50); // 50 of 65536 elements touched
  Dataset<Item> data(items);
  DistArray<float, 1> w({size});
  std::tuple<> none;
  codegen::run_loop(buffered_spec({"w"}), data, codegen::keys(&Item::id), std::tie(w), none,
                    [](const Item& it, auto& w) { w[it.key] += 1.0f; });
  const auto& st = detail::buffered_stats();
  EXPECT_EQ(st.dense_merges, 1); // the first merge measures the density
  EXPECT_EQ(st.sparse_merges, st.rounds - 1);
  float total = 0;
  for (std::int64_t i = 0; i < size; ++i) {
    total += w[i];
  }
  EXPECT_EQ(total, 2000.0f);
}

// -- flags ---------------------------------------------------------------------------------------

TEST(Buffered, FlagsParseAndRejectBadValues) {
  const BufferedSettings saved = detail::buffered_settings();
  EXPECT_TRUE(detail::parse_buffered_flag("--rotor-flush-every", "128", true));
  EXPECT_EQ(detail::buffered_settings().flush_every, 128);
  EXPECT_TRUE(detail::parse_buffered_flag("--rotor-staleness", "4", true));
  EXPECT_EQ(detail::buffered_settings().staleness, 4);
  EXPECT_TRUE(detail::parse_buffered_flag("--rotor-buffered-exchange", "sparse", true));
  EXPECT_EQ(detail::buffered_settings().exchange, BufferedSettings::Exchange::sparse);
  EXPECT_FALSE(detail::parse_buffered_flag("--rotor-threads", "2", true));
  EXPECT_THROW(detail::parse_buffered_flag("--rotor-flush-every", "-3", true), SettingsError);
  EXPECT_THROW(detail::parse_buffered_flag("--rotor-staleness", "x", true), SettingsError);
  EXPECT_THROW(detail::parse_buffered_flag("--rotor-buffered-exchange", "ring", true),
               SettingsError);
  EXPECT_THROW(detail::parse_buffered_flag("--rotor-staleness", "", false), SettingsError);
  detail::buffered_settings() = saved;
}

} // namespace
} // namespace rotor::test
