#include "rotor/distarray/Dataset.h"
#include "rotor/distarray/IndexSpace.h"
#include "rotor/distarray/detail/DatasetInternals.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

namespace {

struct Rating {
  std::int32_t user;
  std::int32_t item;
  float value;
};

rotor::Dataset<Rating> make(int n) {
  rotor::Dataset<Rating> d;
  for (int i = 0; i < n; ++i) {
    d.push_back({(i * 7) % 5, (i * 3) % 4, static_cast<float>(i)});
  }
  return d;
}

TEST(Dataset, ExtentAndHistogram) {
  auto d = make(20);
  EXPECT_EQ(d.size(), 20);
  EXPECT_EQ(d.extent(&Rating::user), 5);
  EXPECT_EQ(d.extent(&Rating::item), 4);
  auto h = d.histogram(&Rating::user);
  ASSERT_EQ(h.size(), 5u);
  for (auto c : h) {
    EXPECT_EQ(c, 4);
  }
  rotor::Dataset<Rating> empty;
  EXPECT_EQ(empty.extent(&Rating::user), 0);
  EXPECT_TRUE(empty.histogram(&Rating::user).empty());
}

TEST(Dataset, NegativeKeyIsAnError) {
  rotor::Dataset<Rating> d;
  d.push_back({1, 1, 0.f});
  d.push_back({-3, 1, 0.f});
  try {
    d.extent(&Rating::user);
    FAIL();
  } catch (const std::out_of_range& e) {
    EXPECT_NE(std::string(e.what()).find("local record 1 has -3"), std::string::npos) << e.what();
  }
  EXPECT_THROW(d.histogram(&Rating::user), std::out_of_range);
}

TEST(Dataset, SortByKeysIsLexicographicAndStable) {
  auto d = make(30);
  d.sort_by_keys();
  ASSERT_EQ(d.local_size(), 30u);
  for (std::size_t i = 1; i < d.local_size(); ++i) {
    const Rating& a = d[i - 1];
    const Rating& b = d[i];
    ASSERT_TRUE(a.user < b.user || (a.user == b.user && a.item <= b.item));
    if (a.user == b.user && a.item == b.item) {
      ASSERT_LT(a.value, b.value); // stable: original order among equal keys
    }
  }
}

TEST(Dataset, ShuffleIsAPermutationFixedBySeed) {
  auto a = make(100);
  auto b = make(100);
  auto c = make(100);
  a.shuffle(5);
  b.shuffle(5);
  c.shuffle(6);
  std::set<float> values;
  bool differs_from_original = false;
  bool differs_from_other_seed = false;
  for (std::size_t i = 0; i < 100; ++i) {
    EXPECT_EQ(a[i].value, b[i].value);
    values.insert(a[i].value);
    differs_from_original |= a[i].value != static_cast<float>(i);
    differs_from_other_seed |= a[i].value != c[i].value;
  }
  EXPECT_EQ(values.size(), 100u);
  EXPECT_TRUE(differs_from_original);
  EXPECT_TRUE(differs_from_other_seed);
}

TEST(Dataset, RemapIsARandomPermutationOfValues) {
  auto d = make(50);
  auto before = d;
  auto perm = d.remap(&Rating::user, 11);
  ASSERT_EQ(perm.size(), 5u);
  std::vector<std::int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (std::int64_t v = 0; v < 5; ++v) {
    EXPECT_EQ(sorted[static_cast<std::size_t>(v)], v);
  }
  for (std::size_t i = 0; i < 50; ++i) {
    EXPECT_EQ(d[i].user, perm[static_cast<std::size_t>(before[i].user)]);
    EXPECT_EQ(d[i].item, before[i].item);
  }
  EXPECT_EQ(d.histogram(&Rating::user).size(), 5u);
  // Only the seed and the extent matter.
  auto again = make(50);
  EXPECT_EQ(again.remap(&Rating::user, 11), perm);
}

TEST(Dataset, RandomPermutationIsUniformEnough) {
  // Each value lands in each position about equally often over many seeds.
  const int n = 4;
  int count[n][n] = {};
  for (std::uint64_t seed = 0; seed < 4000; ++seed) {
    auto p = rotor::detail::random_permutation(n, seed);
    for (int i = 0; i < n; ++i) {
      ++count[i][p[static_cast<std::size_t>(i)]];
    }
  }
  for (auto& row : count) {
    for (int c : row) {
      EXPECT_NEAR(c, 1000, 120);
    }
  }
}

TEST(Dataset, IdsFollowRecordsThroughShuffleAndSort) {
  rotor::detail::RecordOrderHooks keep;
  keep.keep_ids = [] { return true; };
  rotor::detail::set_record_order_hooks(keep);
  auto d = make(60); // value == creation position == id
  rotor::detail::set_record_order_hooks({});
  ASSERT_EQ(d.ids().size(), 60u);
  d.shuffle(3);
  for (std::size_t i = 0; i < 60; ++i) {
    EXPECT_EQ(static_cast<float>(d.ids()[i]), d[i].value);
  }
  d.sort_by_keys();
  for (std::size_t i = 0; i < 60; ++i) {
    EXPECT_EQ(static_cast<float>(d.ids()[i]), d[i].value);
  }
  // Equal keys keep id order after a shuffle (stable by id, not by current position).
  for (std::size_t i = 1; i < 60; ++i) {
    if (d[i - 1].user == d[i].user && d[i - 1].item == d[i].item) {
      EXPECT_LT(d.ids()[i - 1], d.ids()[i]);
    }
  }
  // The shuffle depends on ids, not on the current order.
  auto a = make(60);
  rotor::detail::set_record_order_hooks(keep);
  auto with_ids = make(60);
  rotor::detail::set_record_order_hooks({});
  with_ids.sort_by_keys();
  with_ids.shuffle(8);
  a.shuffle(8);
  for (std::size_t i = 0; i < 60; ++i) {
    EXPECT_EQ(with_ids[i].value, a[i].value);
  }
}

TEST(IndexSpace, VisitsRowMajor) {
  rotor::IndexSpace<2> s({2, 3});
  std::vector<std::pair<std::int64_t, std::int64_t>> seen;
  for (auto [i, j] : s) {
    seen.emplace_back(i, j);
  }
  ASSERT_EQ(seen.size(), 6u);
  EXPECT_EQ(seen[4], std::make_pair(std::int64_t{1}, std::int64_t{1}));
  rotor::IndexSpace<2> empty({0, 3});
  EXPECT_TRUE(empty.begin() == empty.end());
}

} // namespace
