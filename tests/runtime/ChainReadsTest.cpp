// codegen::ChainReads (rotor/runtime/ChainReads.h), the inspector's record of what it read through
// a pointer chain: a row's elements read in order between other steps of the chain coalesce into
// one range per row, a step read again adds nothing, and the reads are live only while the
// object is (run_loop checks the latest, once).
#include "rotor/runtime/ChainReads.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace rotor::test {
namespace {

struct Doc {
  int* words;
  int length;
};

/// Whether one of the noted ranges holds [p, p + bytes).
bool in_one_range(const std::vector<std::pair<std::uintptr_t, std::uintptr_t>>& ranges,
                  const void* p, std::size_t bytes) {
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  for (const auto& [b, e] : ranges) {
    if (b <= begin && begin + bytes <= e) {
      return true;
    }
  }
  return false;
}

/// The bytes the noted ranges cover together (a byte in two ranges counts once: a step noted
/// again after the memo forgot it may add a range that overlaps an earlier one).
std::size_t covered_bytes(std::vector<std::pair<std::uintptr_t, std::uintptr_t>> ranges) {
  std::sort(ranges.begin(), ranges.end());
  std::size_t bytes = 0;
  std::uintptr_t reached = 0;
  for (const auto& [b, e] : ranges) {
    const std::uintptr_t from = std::max(b, reached);
    if (e > from) {
      bytes += e - from;
      reached = e;
    }
  }
  return bytes;
}

TEST(ChainReads, RowsCoalesceAndStepsAreNotedOnce) {
  std::vector<int> a(5, 1), b(3, 2);
  Doc docs[2] = {{a.data(), 5}, {b.data(), 3}};
  Doc* rows[2] = {&docs[0], &docs[1]};
  Doc** chain = rows;
  codegen::ChainReads reads;
  ASSERT_EQ(detail::live_chain_reads().back(), &reads.ranges());
  std::int64_t sum = 0;
  for (int m = 0; m < 2; ++m) {
    for (int n = 0; n < reads.note(reads.note(reads.note(chain)[m])->length); ++n) {
      sum += reads.note(reads.note(reads.note(reads.note(chain)[m])->words)[n]);
    }
  }
  EXPECT_EQ(sum, 5 * 1 + 3 * 2);
  const auto& r = reads.ranges().ranges;
  const auto has = [&](const void* p, std::size_t bytes) { return in_one_range(r, p, bytes); };
  EXPECT_TRUE(has(&chain, sizeof chain));
  EXPECT_TRUE(has(rows, sizeof rows)); // both row pointers: one range
  EXPECT_TRUE(has(a.data(), 5 * sizeof(int)));
  EXPECT_TRUE(has(b.data(), 3 * sizeof(int)));
  EXPECT_TRUE(has(&docs[0].length, sizeof(int)));
  EXPECT_TRUE(has(&docs[1].words, sizeof(int*)));
  EXPECT_LE(r.size(), 9u) << "a row's words must coalesce into one range";
  EXPECT_FALSE(has(a.data() + 5, sizeof(int))); // nothing past a row's count
}

// The memo of bytes noted before and the run the last new bytes went to are shortcuts only:
// a wider read at an address noted before, rows read interleaved, and many rows whose
// addresses share the memo's slots still end up inside the noted ranges, and nothing more.
TEST(ChainReads, ShortcutsNeverLoseBytes) {
  std::vector<std::int64_t> wide(4, 7);
  std::vector<std::vector<int>> rows(100, std::vector<int>(37, 1));
  std::vector<const int*> starts;
  for (const auto& row : rows) {
    starts.push_back(row.data());
  }
  codegen::ChainReads reads;
  const auto& r = reads.ranges().ranges;
  const auto covered = [&](const void* p, std::size_t bytes) { return in_one_range(r, p, bytes); };
  reads.note(*reinterpret_cast<const std::int32_t*>(wide.data()));
  reads.note(wide[0]); // the same address, 8 bytes
  EXPECT_TRUE(covered(wide.data(), sizeof(std::int64_t)));
  for (std::size_t n = 0; n < 37; ++n) { // rows 0 and 1 interleaved
    reads.note(rows[0][n]);
    reads.note(rows[1][n]);
  }
  for (std::size_t d = 2; d < rows.size(); ++d) {
    for (std::size_t n = 0; n < rows[d].size(); ++n) {
      reads.note(reads.note(starts[d])[n]);
    }
  }
  for (std::size_t d = 0; d < rows.size(); ++d) {
    EXPECT_TRUE(covered(rows[d].data(), rows[d].size() * sizeof(int))) << "row " << d;
  }
  EXPECT_LE(covered_bytes(r), sizeof(std::int64_t) + rows.size() * 37 * sizeof(int) +
                                  starts.size() * sizeof(const int*));
  for (std::size_t d = 2; d < starts.size(); ++d) {
    EXPECT_TRUE(covered(&starts[d], sizeof(const int*))) << "row pointer " << d;
  }
}

TEST(ChainReads, LiveOnlyWhileAliveAndDeclineFlagIsTakenOnce) {
  const std::size_t before = detail::live_chain_reads().size();
  {
    codegen::ChainReads reads;
    EXPECT_EQ(detail::live_chain_reads().size(), before + 1);
  }
  EXPECT_EQ(detail::live_chain_reads().size(), before);
  detail::chain_loop_declined_value = true;
  EXPECT_TRUE(codegen::ChainReads::take_declined());
  EXPECT_FALSE(codegen::ChainReads::take_declined());
}

} // namespace
} // namespace rotor::test
