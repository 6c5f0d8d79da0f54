// Wave schedule and block order for GPU workers (gpu/include/rotor/gpu/WaveSchedule.h).
#include "rotor/gpu/WaveSchedule.h"
#include "rotor/gpu/SyntheticRatings.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <vector>

namespace {

using rotor::gpu::build_waves;
using rotor::gpu::check_waves;
using rotor::gpu::WaveOptions;
using rotor::gpu::Waves;

Waves waves_of(const std::vector<std::int32_t>& u, const std::vector<std::int32_t>& i,
               std::int32_t users, std::int32_t items, WaveOptions o = {}) {
  return build_waves(u.data(), i.data(), u.size(), users, items, o);
}

std::string check(const Waves& w, const std::vector<std::int32_t>& u,
                  const std::vector<std::int32_t>& i, std::int32_t users, std::int32_t items) {
  return check_waves(w, u.data(), i.data(), u.size(), users, items);
}

TEST(WaveSchedule, Empty) {
  const Waves w = build_waves(nullptr, nullptr, 0, 0, 0);
  EXPECT_EQ(w.waves(), 0);
  EXPECT_TRUE(w.order.empty());
  EXPECT_EQ(check_waves(w, nullptr, nullptr, 0, 0, 0), "");
}

TEST(WaveSchedule, DisjointKeysFormOneWave) {
  const std::vector<std::int32_t> u{0, 1, 2, 3}, i{3, 2, 1, 0};
  const Waves w = waves_of(u, i, 4, 4);
  ASSERT_EQ(w.waves(), 1);
  EXPECT_EQ(w.order, (std::vector<std::int64_t>{0, 1, 2, 3}));
}

TEST(WaveSchedule, HandExample) {
  // r0 (0,0) r1 (0,1) r2 (1,0) r3 (1,1) r4 (2,2): r3 must follow r1 (item 1) and r2 (user 1),
  // so waves {r0, r4}, {r1, r2}, {r3}
  const std::vector<std::int32_t> u{0, 0, 1, 1, 2}, i{0, 1, 0, 1, 2};
  const Waves w = waves_of(u, i, 3, 3);
  ASSERT_EQ(w.waves(), 3);
  EXPECT_EQ(w.order, (std::vector<std::int64_t>{0, 4, 1, 2, 3}));
  EXPECT_EQ(w.wave_start, (std::vector<std::int64_t>{0, 2, 4, 5}));
  EXPECT_EQ(w.wave_of, (std::vector<std::int32_t>{0, 1, 1, 2, 0}));
  EXPECT_EQ(check(w, u, i, 3, 3), "");
}

TEST(WaveSchedule, HotKeySpreadsOverConsecutiveWaves) {
  // user 0 has 50 records, the other 50 records have their own users and items
  std::vector<std::int32_t> u, i;
  for (int r = 0; r < 100; ++r) {
    u.push_back(r % 2 == 0 ? 0 : r);
    i.push_back(r);
  }
  const Waves w = waves_of(u, i, 100, 100);
  EXPECT_EQ(w.waves(), 50); // the hot key's degree: the fewest possible
  int prev = -1;
  for (int r = 0; r < 100; r += 2) {
    EXPECT_EQ(w.wave_of[r], prev + 1) << "record " << r;
    prev = w.wave_of[r];
  }
  EXPECT_EQ(check(w, u, i, 100, 100), "");
}

TEST(WaveSchedule, MaxWaveSizeIsRespected) {
  std::vector<std::int32_t> u(64), i(64);
  for (int r = 0; r < 64; ++r) {
    u[r] = r;
    i[r] = 63 - r;
  }
  WaveOptions o;
  o.max_wave_size = 10;
  const Waves w = waves_of(u, i, 64, 64, o);
  EXPECT_EQ(w.waves(), 7);
  EXPECT_EQ(w.largest_wave(), 10);
  EXPECT_EQ(check(w, u, i, 64, 64), "");
}

TEST(WaveSchedule, KeyOutOfRangeThrows) {
  const std::vector<std::int32_t> u{0, 5}, i{0, 0};
  EXPECT_THROW(waves_of(u, i, 5, 1), std::invalid_argument);
  const std::vector<std::int32_t> neg{-1};
  EXPECT_THROW(waves_of(neg, {0}, 5, 1), std::invalid_argument);
}

TEST(WaveSchedule, CheckerFindsBrokenSchedules) {
  const std::vector<std::int32_t> u{0, 0, 1}, i{0, 1, 1};
  Waves w = waves_of(u, i, 2, 2);
  ASSERT_EQ(check(w, u, i, 2, 2), "");
  Waves conflict = w; // all in one wave
  conflict.wave_start = {0, 3};
  conflict.order = {0, 1, 2};
  EXPECT_NE(check(conflict, u, i, 2, 2).find("two records"), std::string::npos);
  Waves reordered = w; // user 0's records swapped, each alone in its wave
  reordered.order = {1, 0, 2};
  reordered.wave_start = {0, 1, 2, 3};
  EXPECT_NE(check(reordered, u, i, 2, 2).find("after a later record"), std::string::npos);
  Waves twice = w;
  twice.order[1] = twice.order[0];
  EXPECT_NE(check(twice, u, i, 2, 2), "");
}

/// Property test: random Zipf-skewed blocks, with and without a wave size limit.
TEST(WaveSchedule, PropertiesOnSkewedInputs) {
  for (std::uint64_t seed = 1; seed <= 24; ++seed) {
    const std::int32_t users = 20 + static_cast<std::int32_t>(seed * 37 % 300);
    const std::int32_t items = 10 + static_cast<std::int32_t>(seed * 53 % 200);
    const std::size_t records = 500 + seed * 211 % 4000;
    const double skew = (seed % 4) * 0.5; // 0 (uniform) .. 1.5 (very hot head)
    const auto d = rotor::gpu::make_synthetic_ratings(users, items, records, skew, seed);
    for (std::int64_t limit : {0, 1, 7, 64}) {
      WaveOptions o;
      o.max_wave_size = limit;
      const Waves w = waves_of(d.user, d.item, users, items, o);
      ASSERT_EQ(check(w, d.user, d.item, users, items), "")
          << "seed " << seed << " limit " << limit;
      // no key has more records than waves; a limit is never exceeded
      std::vector<int> deg_u(users), deg_i(items);
      for (std::size_t r = 0; r < records; ++r) {
        ++deg_u[d.user[r]];
        ++deg_i[d.item[r]];
      }
      const int max_degree = std::max(*std::max_element(deg_u.begin(), deg_u.end()),
                                      *std::max_element(deg_i.begin(), deg_i.end()));
      EXPECT_GE(w.waves(), max_degree);
      if (limit == 0) {
        EXPECT_LE(static_cast<std::size_t>(w.waves()), records);
      } else {
        EXPECT_LE(w.largest_wave(), limit);
      }
      if (limit == 1) {
        EXPECT_EQ(static_cast<std::size_t>(w.waves()), records); // order = record order
      }
      // wave_of agrees with order
      for (int k = 0; k < w.waves(); ++k) {
        for (auto p = w.wave_start[k]; p < w.wave_start[k + 1]; ++p) {
          ASSERT_EQ(w.wave_of[static_cast<std::size_t>(w.order[static_cast<std::size_t>(p)])], k);
        }
      }
      // deterministic
      const Waves again = waves_of(d.user, d.item, users, items, o);
      EXPECT_EQ(again.order, w.order);
      EXPECT_EQ(again.wave_start, w.wave_start);
    }
  }
}

TEST(WaveSchedule, HotHeadNeedsAsManyWavesAsItsDegree) {
  // skew 2: the hottest user has a large share of the records; greedy (no limit) reaches the
  // lower bound max(degree) on these inputs when the hot key's records dominate
  const auto d = rotor::gpu::make_synthetic_ratings(1000, 1000, 20000, 2.0, 7);
  const Waves w = waves_of(d.user, d.item, 1000, 1000);
  std::vector<int> deg_u(1000), deg_i(1000);
  for (std::size_t r = 0; r < d.size(); ++r) {
    ++deg_u[d.user[r]];
    ++deg_i[d.item[r]];
  }
  const int lower = std::max(*std::max_element(deg_u.begin(), deg_u.end()),
                             *std::max_element(deg_i.begin(), deg_i.end()));
  EXPECT_GE(w.waves(), lower);
  EXPECT_LE(w.waves(), 2 * lower); // greedy stays near the bound on a hot-head input
  EXPECT_EQ(check(w, d.user, d.item, 1000, 1000), "");
}

TEST(BlockOrder, RotationCoversEveryBlockOnceWithoutSharedBlocks) {
  for (int g = 1; g <= 8; ++g) {
    const auto steps = rotor::gpu::rotation_block_order(g);
    ASSERT_EQ(static_cast<int>(steps.size()), g);
    std::set<std::pair<int, int>> all;
    for (const auto& step : steps) {
      ASSERT_EQ(static_cast<int>(step.size()), g);
      std::set<int> ub, ib;
      for (int gpu = 0; gpu < g; ++gpu) {
        const auto b = step[gpu];
        EXPECT_EQ(b.user_block, gpu); // a GPU keeps its user block (W rows stay resident)
        EXPECT_TRUE(ub.insert(b.user_block).second);
        EXPECT_TRUE(ib.insert(b.item_block).second);
        EXPECT_TRUE(all.insert({b.user_block, b.item_block}).second);
      }
    }
    EXPECT_EQ(static_cast<int>(all.size()), g * g);
  }
  EXPECT_THROW(rotor::gpu::rotation_block_order(0), std::invalid_argument);
}

TEST(BlockOrder, SplitIntoBlocksKeepsRecordOrderAndKeyRanges) {
  const auto d = rotor::gpu::make_synthetic_ratings(101, 37, 3000, 1.0, 3);
  const int g = 4;
  const auto blocks =
      rotor::gpu::split_into_blocks(d.user.data(), d.item.data(), d.size(), d.users, d.items, g);
  ASSERT_EQ(blocks.size(), 16u);
  std::size_t total = 0;
  for (int b = 0; b < g * g; ++b) {
    const auto& recs = blocks[static_cast<std::size_t>(b)];
    total += recs.size();
    EXPECT_TRUE(std::is_sorted(recs.begin(), recs.end()));
    for (auto r : recs) {
      EXPECT_EQ(rotor::gpu::key_block(d.user[r], d.users, g), b / g);
      EXPECT_EQ(rotor::gpu::key_block(d.item[r], d.items, g), b % g);
    }
  }
  EXPECT_EQ(total, d.size());
  EXPECT_EQ(rotor::gpu::key_block(0, 101, 4), 0);
  EXPECT_EQ(rotor::gpu::key_block(100, 101, 4), 3);
}

} // namespace

namespace {

// -- build_key_waves: any number of key fields (the GPU executor's schedule) ------------------

TEST(KeyWaves, TwoFieldsEqualBuildWaves) {
  const auto d = rotor::gpu::make_synthetic_ratings(500, 300, 20000, 1.0, 11);
  std::vector<std::int64_t> keys;
  for (std::size_t r = 0; r < d.user.size(); ++r) {
    keys.push_back(d.user[r] * 1000003LL); // sparse, large keys: hashed, not dense
    keys.push_back(d.item[r]);
  }
  const Waves by_keys = rotor::gpu::build_key_waves(keys.data(), d.user.size(), 2);
  const Waves dense = waves_of(d.user, d.item, 500, 300);
  EXPECT_EQ(by_keys.order, dense.order);
  EXPECT_EQ(by_keys.wave_start, dense.wave_start);
  EXPECT_EQ(check(by_keys, d.user, d.item, 500, 300), "");
}

TEST(KeyWaves, OneFieldKeepsOnlyThatKeysOrder) {
  // field: 0 0 1 0 2 1 -> waves {r0, r2, r4}, {r1, r5}, {r3}
  const std::vector<std::int64_t> keys{0, 0, 1, 0, 2, 1};
  const Waves w = rotor::gpu::build_key_waves(keys.data(), keys.size(), 1);
  EXPECT_EQ(w.order, (std::vector<std::int64_t>{0, 2, 4, 1, 5, 3}));
  EXPECT_EQ(w.wave_start, (std::vector<std::int64_t>{0, 3, 5, 6}));
}

TEST(KeyWaves, NoFieldsIsOneWaveAndThreeFieldsAreConflictFree) {
  const Waves none = rotor::gpu::build_key_waves(nullptr, 5, 0);
  EXPECT_EQ(none.wave_start, (std::vector<std::int64_t>{0, 5}));
  std::vector<std::int64_t> keys;
  for (int r = 0; r < 3000; ++r) {
    keys.push_back(r % 7);
    keys.push_back(-(r % 11)); // negative keys are keys too
    keys.push_back(r % 13);
  }
  const Waves w = rotor::gpu::build_key_waves(keys.data(), 3000, 3);
  std::vector<std::int64_t> last(3000, -1);
  for (int wave = 0; wave < w.waves(); ++wave) {
    for (int f = 0; f < 3; ++f) {
      std::set<std::int64_t> seen;
      for (std::int64_t p = w.wave_start[wave]; p < w.wave_start[wave + 1]; ++p) {
        EXPECT_TRUE(seen.insert(keys[w.order[p] * 3 + f]).second) << "wave " << wave;
      }
    }
  }
  // each key's records in record order along the waves
  for (int f = 0; f < 3; ++f) {
    std::map<std::int64_t, std::int64_t> prev;
    for (std::int64_t r : w.order) {
      const std::int64_t k = keys[r * 3 + f];
      EXPECT_TRUE(prev.count(k) == 0 || prev[k] < r);
      prev[k] = r;
    }
  }
  std::vector<std::int64_t> sorted = w.order;
  std::sort(sorted.begin(), sorted.end());
  for (std::int64_t r = 0; r < 3000; ++r) {
    ASSERT_EQ(sorted[r], r);
  }
}

} // namespace
