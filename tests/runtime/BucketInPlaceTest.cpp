// The block-wise stable grouping behind record layouts (runtime/src/BucketInPlace.h), checked
// against std::stable_sort on rows that span many blocks, with a parallel id column.
#include "BucketInPlace.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>

namespace {

using rotor::detail::RowColumn;

struct Row {
  std::int32_t bucket;
  std::int32_t seq;
  float value; // 12-byte rows, like a rating
};

void expect_grouped_stably(std::size_t n, int buckets, std::size_t block, unsigned seed,
                           bool presorted = false) {
  std::mt19937 rng(seed);
  std::vector<Row> rows(n);
  std::vector<std::uint64_t> ids(n);
  for (std::size_t i = 0; i < n; ++i) {
    // skewed buckets: a few large, many small, some empty
    const int b = static_cast<int>(std::min<unsigned>(rng() % 7 == 0 ? rng() % buckets : rng() % 3,
                                                      static_cast<unsigned>(buckets - 1)));
    rows[i] = {b, static_cast<std::int32_t>(i), static_cast<float>(i) * 0.5f};
    ids[i] = 1000 + i;
  }
  if (presorted) {
    std::stable_sort(rows.begin(), rows.end(),
                     [](const Row& a, const Row& b) { return a.bucket < b.bucket; });
  }
  std::vector<Row> expect = rows;
  std::stable_sort(expect.begin(), expect.end(),
                   [](const Row& a, const Row& b) { return a.bucket < b.bucket; });
  std::vector<std::size_t> starts(static_cast<std::size_t>(buckets) + 1, 0);
  for (const Row& r : rows) {
    ++starts[static_cast<std::size_t>(r.bucket) + 1];
  }
  std::partial_sum(starts.begin(), starts.end(), starts.begin());
  std::vector<std::uint64_t> id_of_seq(n); // ids travel with their rows
  for (std::size_t i = 0; i < n; ++i) {
    id_of_seq[static_cast<std::size_t>(rows[i].seq)] = ids[i];
  }
  rotor::detail::stable_bucket_in_place(
      starts, [&](std::size_t i) { return rows[i].bucket; },
      {{reinterpret_cast<char*>(rows.data()), sizeof(Row)},
       {reinterpret_cast<char*>(ids.data()), sizeof(std::uint64_t)}},
      block);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(rows[i].bucket, expect[i].bucket)
        << "row " << i << " (n " << n << ", block " << block << ")";
    ASSERT_EQ(rows[i].seq, expect[i].seq) << "row " << i;
    ASSERT_EQ(rows[i].value, expect[i].value) << "row " << i;
    ASSERT_EQ(ids[i], id_of_seq[static_cast<std::size_t>(rows[i].seq)]) << "row " << i;
  }
}

TEST(BucketInPlace, GroupsStablyAcrossManyBlocks) {
  expect_grouped_stably(10000, 8, 64, 1);
  expect_grouped_stably(10007, 5, 100, 2);
  expect_grouped_stably(5000, 40, 7, 3); // many buckets, tiny blocks, long block cycles
  expect_grouped_stably(999, 3, 1, 4);   // one-row blocks
}

TEST(BucketInPlace, HandlesEdgeSizes) {
  expect_grouped_stably(0, 4, 16, 5);
  expect_grouped_stably(1, 4, 16, 6);
  expect_grouped_stably(63, 2, 64, 7);  // fewer rows than a block: remainders only
  expect_grouped_stably(128, 2, 64, 8); // exact blocks
  expect_grouped_stably(3000, 6, 50, 9, true);
}

TEST(BucketInPlace, BlockRowsFollowTheBudget) {
  // 9M 12-byte ratings into 8 cells: blocks of thousands of rows, within 16 MiB of buffers
  const std::size_t rows = rotor::detail::bucket_block_rows(9000000, 8, 16);
  EXPECT_GE(rows, 1000u);
  EXPECT_LE(rows * 9 * 16, std::size_t{16} << 20);
  // too many buckets for a block each: the caller permutes instead
  EXPECT_EQ(rotor::detail::bucket_block_rows(1000000, 1 << 20, 16), 0u);
  // a few rows: one block holds them all
  EXPECT_EQ(rotor::detail::bucket_block_rows(10, 4, 16), 10u);
}

} // namespace
