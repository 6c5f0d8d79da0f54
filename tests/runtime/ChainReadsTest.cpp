// codegen::ChainReads (rotor/runtime/ChainReads.h), the inspector's record of what it read through
// a pointer chain: a row's elements read in order between other steps of the chain coalesce into
// one range per row, a step read again adds nothing, and the reads are live only while the
// object is (run_loop checks the latest, once).
#include "rotor/runtime/ChainReads.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace rotor::test {
namespace {

struct Doc {
  int* words;
  int length;
};

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
  const auto has = [&](const void* p, std::size_t bytes) {
    const auto begin = reinterpret_cast<std::uintptr_t>(p);
    for (const auto& [b, e] : r) {
      if (b <= begin && begin + bytes <= e) {
        return true;
      }
    }
    return false;
  };
  EXPECT_TRUE(has(&chain, sizeof chain));
  EXPECT_TRUE(has(rows, sizeof rows)); // both row pointers: one range
  EXPECT_TRUE(has(a.data(), 5 * sizeof(int)));
  EXPECT_TRUE(has(b.data(), 3 * sizeof(int)));
  EXPECT_TRUE(has(&docs[0].length, sizeof(int)));
  EXPECT_TRUE(has(&docs[1].words, sizeof(int*)));
  EXPECT_LE(r.size(), 9u) << "a row's words must coalesce into one range";
  EXPECT_FALSE(has(a.data() + 5, sizeof(int))); // nothing past a row's count
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
