// Staged T** tables (rotor/runtime/PointerTable.h) take their memory from the thread's staging
// store: a table staged again (every sweep of a sampler) gets the memory the last one gave back,
// and still sees zero wherever it copied no row, whatever the last loop left there.
#include "rotor/runtime/PointerTable.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace rotor::test {
namespace {

TEST(StagingStore, ATableStagedAgainReusesTheMemoryAndSeesZeroes) {
  std::vector<std::vector<int>> rows = {{1, 2, 3}, {4}, {5, 6}};
  std::vector<int*> table = {rows[0].data(), rows[1].data(), rows[2].data()};
  const std::size_t kept_before = detail::StagingStore::kept_bytes();
  const int* first_memory = nullptr;
  {
    codegen::StagedPointerTable<int> staged(table.data(), {3, 1, 0}, false);
    DistArray<int, 2>& a = staged.array();
    ASSERT_EQ(a.rows(), 3);
    ASSERT_EQ(a.cols(), 3);
    first_memory = a.data();
    EXPECT_EQ(a(0, 2), 3);
    EXPECT_EQ(a(1, 0), 4);
    EXPECT_EQ(a(1, 1), 0); // the rest of a shorter row
    EXPECT_EQ(a(2, 0), 0); // a row the loop does not reach
    for (std::int64_t i = 0; i < a.size(); ++i) {
      a.data()[i] = 77; // what the loop leaves in the staged memory
    }
  }
  EXPECT_EQ(rows[0], (std::vector<int>{77, 77, 77}));
  EXPECT_EQ(rows[1], (std::vector<int>{77}));
  EXPECT_EQ(rows[2], (std::vector<int>{5, 6})) << "a row the loop did not reach was written";
  EXPECT_EQ(detail::StagingStore::kept_bytes(), kept_before + 9 * sizeof(int));
  {
    codegen::StagedPointerTable<int> again(table.data(), {1, 1, 2}, false);
    DistArray<int, 2>& a = again.array();
    ASSERT_EQ(a.cols(), 2);
    EXPECT_EQ(a.data(), first_memory) << "the kept memory was not reused";
    EXPECT_EQ(a(0, 0), 77);
    EXPECT_EQ(a(0, 1), 0);
    EXPECT_EQ(a(1, 1), 0);
    EXPECT_EQ(a(2, 1), 6);
  }
  EXPECT_EQ(detail::StagingStore::kept_bytes(), kept_before + 9 * sizeof(int));
}

TEST(StagingStore, KeepsAtMostItsBound) {
  // (the oversized one is refused before anything could use its memory: 64 bytes stand for it)
  const auto buffer = [](std::size_t bytes) {
    return detail::StagingStore::Buffer{
        std::unique_ptr<void, detail::AlignedFree>(
            detail::aligned_alloc_bytes(bytes <= 4096 ? bytes : 64)),
        bytes};
  };
  for (int i = 0; i < 20; ++i) {
    detail::StagingStore::give(buffer(4096));
  }
  EXPECT_LE(detail::StagingStore::kept_bytes(), detail::StagingStore::k_kept * 4096);
  detail::StagingStore::give(buffer(detail::StagingStore::k_kept_bytes + 1));
  EXPECT_LE(detail::StagingStore::kept_bytes(), detail::StagingStore::k_kept_bytes);
}

} // namespace
} // namespace rotor::test
