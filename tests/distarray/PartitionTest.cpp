#include "rotor/distarray/Partition.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

namespace {

struct Rating {
  std::int32_t user;
  std::int32_t item;
  float value;
};

std::vector<std::int64_t> block_sums(const std::vector<std::int64_t>& counts,
                                     const rotor::Boundaries& b) {
  std::vector<std::int64_t> sums(static_cast<std::size_t>(b.blocks()), 0);
  for (std::size_t v = 0; v < counts.size(); ++v) {
    sums[static_cast<std::size_t>(b.block_of(static_cast<std::int64_t>(v)))] += counts[v];
  }
  return sums;
}

/// Zipf(s) counts over n keys, `total` records in all.
std::vector<std::int64_t> zipf_counts(int n, double s, double total) {
  double norm = 0;
  for (int k = 1; k <= n; ++k) {
    norm += 1.0 / std::pow(k, s);
  }
  std::vector<std::int64_t> c(static_cast<std::size_t>(n));
  for (int k = 1; k <= n; ++k) {
    c[static_cast<std::size_t>(k - 1)] =
        static_cast<std::int64_t>(total / std::pow(k, s) / norm) + 1;
  }
  return c;
}

TEST(Boundaries, EqualRanges) {
  auto b = rotor::equal_boundaries(10, 3);
  EXPECT_EQ(b.starts, (std::vector<std::int64_t>{0, 3, 6, 10}));
  EXPECT_EQ(b.block_of(0), 0);
  EXPECT_EQ(b.block_of(5), 1);
  EXPECT_EQ(b.block_of(9), 2);
  EXPECT_THROW(rotor::equal_boundaries(10, 0), std::invalid_argument);
}

TEST(Boundaries, BalancedSplitsSkewedCountsBetterThanEqualRanges) {
  const auto counts = zipf_counts(1000, 1.0, 1e6);
  for (int parts : {2, 4, 8, 16}) {
    const auto balanced = rotor::balanced_boundaries(counts, parts);
    const auto equal = rotor::equal_boundaries(1000, parts);
    ASSERT_EQ(balanced.blocks(), parts);
    EXPECT_EQ(balanced.starts.front(), 0);
    EXPECT_EQ(balanced.extent(), 1000);
    for (int p = 0; p < parts; ++p) {
      EXPECT_LT(balanced.starts[static_cast<std::size_t>(p)],
                balanced.starts[static_cast<std::size_t>(p) + 1]);
    }
    const double bi = rotor::imbalance(block_sums(counts, balanced));
    const double ei = rotor::imbalance(block_sums(counts, equal));
    EXPECT_LT(bi, ei) << parts;
  }
  // Uniform counts: perfect balance.
  std::vector<std::int64_t> flat(100, 5);
  EXPECT_DOUBLE_EQ(rotor::imbalance(block_sums(flat, rotor::balanced_boundaries(flat, 4))), 1.0);
}

TEST(Boundaries, ClosestCutAndEdgeCases) {
  // Cut after key 0 (3 of 6) rather than after key 1 (5 of 6).
  EXPECT_EQ(rotor::balanced_boundaries({3, 2, 1}, 2).starts, (std::vector<std::int64_t>{0, 1, 3}));
  // One heavy key can only be in one block.
  auto heavy = rotor::balanced_boundaries({100, 1, 1, 1}, 2);
  EXPECT_EQ(heavy.starts, (std::vector<std::int64_t>{0, 1, 4}));
  // Fewer keys than parts: empty ranges, still valid and monotone.
  auto few = rotor::balanced_boundaries({1, 1}, 4);
  ASSERT_EQ(few.blocks(), 4);
  for (std::size_t i = 1; i < few.starts.size(); ++i) {
    EXPECT_LE(few.starts[i - 1], few.starts[i]);
  }
  EXPECT_EQ(few.extent(), 2);
  auto none = rotor::balanced_boundaries({}, 3);
  EXPECT_EQ(none.starts, (std::vector<std::int64_t>{0, 0, 0, 0}));
  EXPECT_THROW(rotor::balanced_boundaries({1, -1}, 2), std::invalid_argument);
}

TEST(BlockGrid, HistogramPartitionAndBuckets) {
  rotor::Dataset<Rating> d;
  for (int i = 0; i < 200; ++i) {
    d.push_back({(i * i) % 17, i % 11, 0.f});
  }
  rotor::BlockGrid grid{{rotor::histogram_partition(d, &Rating::user, 3),
                         rotor::histogram_partition(d, &Rating::item, 2)}};
  EXPECT_EQ(grid.blocks(), 6);
  auto b = rotor::bucket_by_block(d, grid, &Rating::user, &Rating::item);
  ASSERT_EQ(b.offsets.size(), 7u);
  EXPECT_EQ(b.offsets.back(), 200);
  EXPECT_EQ(std::accumulate(b.global_counts.begin(), b.global_counts.end(), std::int64_t{0}), 200);
  for (int k = 0; k < 6; ++k) {
    EXPECT_EQ(b.global_counts[static_cast<std::size_t>(k)],
              b.offsets[static_cast<std::size_t>(k) + 1] - b.offsets[static_cast<std::size_t>(k)]);
    std::size_t prev = 0;
    for (auto i = b.offsets[static_cast<std::size_t>(k)];
         i < b.offsets[static_cast<std::size_t>(k) + 1]; ++i) {
      const std::size_t r = b.order[static_cast<std::size_t>(i)];
      const std::int64_t keys[] = {d[r].user, d[r].item};
      EXPECT_EQ(grid.block_of(keys), k);
      if (i > b.offsets[static_cast<std::size_t>(k)]) {
        EXPECT_GT(r, prev); // stable
      }
      prev = r;
    }
  }
  const std::int64_t outside[] = {17, 0};
  EXPECT_THROW(grid.block_of(outside), std::out_of_range);
  EXPECT_THROW(rotor::bucket_by_block(d, grid, &Rating::user), std::invalid_argument);
}

} // namespace
