// The memory plan (gpu/include/rotor/gpu/MemoryPlan.h) on CPU: every plan checked by the replay
// (blocks present when computed, never over the limit, dirty blocks written back, uploads in
// rotation order), limits from one step to everything, a clear error below one step, and SGD-MF
// run through a plan with emulated device slots bitwise equal to the in-memory run.
#include "rotor/gpu/MemoryPlan.h"
#include "rotor/gpu/BlockedRatings.h"
#include "rotor/gpu/SgdUpdate.h"
#include "rotor/gpu/SyntheticRatings.h"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

namespace {

using namespace rotor::gpu;

BlockBytes random_bytes(int blocks, std::mt19937& rng) {
  std::uniform_int_distribution<std::uint64_t> size(0, 1000);
  BlockBytes b;
  b.user_blocks = b.item_blocks = blocks;
  for (int x = 0; x < blocks * blocks; ++x) {
    b.records.push_back(size(rng) * 12);
  }
  for (int x = 0; x < blocks; ++x) {
    b.user_rows.push_back(size(rng) * 4 + 4);
    b.item_rows.push_back(size(rng) * 4 + 4);
  }
  return b;
}

std::uint64_t max_of(const std::vector<std::uint64_t>& v) {
  return *std::max_element(v.begin(), v.end());
}

std::uint64_t total(const BlockBytes& b) {
  return std::accumulate(b.records.begin(), b.records.end(), std::uint64_t{0}) +
         std::accumulate(b.user_rows.begin(), b.user_rows.end(), std::uint64_t{0}) +
         std::accumulate(b.item_rows.begin(), b.item_rows.end(), std::uint64_t{0});
}

/// Device bytes with a slot for every block (slots are as large as their kind's largest block).
std::uint64_t all_slots(const BlockBytes& b) {
  return b.records.size() * max_of(b.records) + b.user_rows.size() * max_of(b.user_rows) +
         b.item_rows.size() * max_of(b.item_rows);
}

TEST(MemoryPlan, EveryPlanReplaysFromOneStepToEverything) {
  std::mt19937 rng(3);
  for (int blocks = 1; blocks <= 5; ++blocks) {
    for (int epochs = 1; epochs <= 3; ++epochs) {
      const BlockBytes b = random_bytes(blocks, rng);
      const auto order = single_gpu_rotation_order(blocks, epochs);
      const std::uint64_t one = max_of(b.records) + max_of(b.user_rows) + max_of(b.item_rows);
      const std::uint64_t all = all_slots(b) + one;
      for (std::uint64_t limit = one; limit <= all; limit += std::max<std::uint64_t>(1, all / 37)) {
        const MemoryPlan plan = plan_memory(order, b, limit);
        EXPECT_EQ(check_memory_plan(plan, order, b, limit), "")
            << blocks << " blocks, " << epochs << " epochs, limit " << limit;
        EXPECT_LE(plan.device_bytes, limit);
      }
    }
  }
}

TEST(MemoryPlan, LimitBelowOneStepNamesTheSizes) {
  BlockBytes b;
  b.user_blocks = b.item_blocks = 2;
  b.records = {1200, 2400, 36, 0};
  b.user_rows = {400, 512};
  b.item_rows = {256, 128};
  const auto order = single_gpu_rotation_order(2, 1);
  EXPECT_NO_THROW(plan_memory(order, b, 2400 + 512 + 256));
  try {
    plan_memory(order, b, 2400 + 512 + 255);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "--rotor-gpu-memory=3167 bytes is too small for one rotation step: "
                           "largest records block 2400 + largest W block 512 + largest H block "
                           "256 = 3168 bytes");
  }
}

TEST(MemoryPlan, EverythingResidentUploadsOnceAndWritesBackOnce) {
  std::mt19937 rng(5);
  const BlockBytes b = random_bytes(4, rng);
  const auto order = single_gpu_rotation_order(4, 3);
  const MemoryPlan plan = plan_memory(order, b, all_slots(b));
  ASSERT_EQ(check_memory_plan(plan, order, b, all_slots(b)), "");
  EXPECT_EQ(plan.device_bytes, all_slots(b));
  EXPECT_EQ(plan.uploaded_bytes, total(b));
  const std::uint64_t rows =
      total(b) - std::accumulate(b.records.begin(), b.records.end(), std::uint64_t{0});
  EXPECT_EQ(plan.downloaded_bytes, rows); // each W and H block once, at the end
  for (const auto& step : plan.steps) {
    for (const auto& t : step.before) {
      EXPECT_EQ(t.direction, Transfer::Direction::upload);
    }
    for (const auto& t : step.prefetch) {
      EXPECT_EQ(t.direction, Transfer::Direction::upload);
    }
  }
}

TEST(MemoryPlan, HalfTheNeedOverlapsEveryCopyAfterTheFirstStep) {
  std::mt19937 rng(9);
  const BlockBytes b = random_bytes(6, rng);
  const auto order = single_gpu_rotation_order(6, 2);
  const std::uint64_t half = total(b) / 2;
  const MemoryPlan plan = plan_memory(order, b, half);
  ASSERT_EQ(check_memory_plan(plan, order, b, half), "");
  EXPECT_LT(plan.slots[0], 36); // records stream
  EXPECT_GE(plan.slots[0], 2);
  EXPECT_GT(plan.uploaded_bytes, total(b)); // records of the second epoch come again
  for (std::size_t s = 1; s < plan.steps.size(); ++s) {
    EXPECT_TRUE(plan.steps[s].before.empty()) << "step " << s << " waits for a copy";
  }
}

TEST(MemoryPlan, OneSlotPerKindLoadsBeforeEachStep) {
  std::mt19937 rng(11);
  const BlockBytes b = random_bytes(3, rng);
  const auto order = single_gpu_rotation_order(3, 1);
  const std::uint64_t one = max_of(b.records) + max_of(b.user_rows) + max_of(b.item_rows);
  const MemoryPlan plan = plan_memory(order, b, one);
  ASSERT_EQ(check_memory_plan(plan, order, b, one), "");
  EXPECT_EQ(plan.slots[0] + plan.slots[1] + plan.slots[2], 3);
  for (const auto& step : plan.steps) {
    EXPECT_TRUE(step.prefetch.empty());
  }
}

TEST(MemoryPlan, NegativeControlsTheReplayCatches) {
  std::mt19937 rng(13);
  const BlockBytes b = random_bytes(3, rng);
  const auto order = single_gpu_rotation_order(3, 2);
  const std::uint64_t limit = total(b) / 2;
  const MemoryPlan good = plan_memory(order, b, limit);
  ASSERT_EQ(check_memory_plan(good, order, b, limit), "");
  MemoryPlan no_write_back = good;
  no_write_back.write_back.pop_back();
  EXPECT_NE(check_memory_plan(no_write_back, order, b, limit), "");
  MemoryPlan over = good;
  EXPECT_NE(check_memory_plan(over, order, b, good.device_bytes - 1), "");
  MemoryPlan late = good; // a prefetch moved after the step that needs it
  for (std::size_t s = 0; s + 2 < late.steps.size(); ++s) {
    if (!late.steps[s].prefetch.empty()) {
      late.steps[s + 1].prefetch.push_back(late.steps[s].prefetch.back());
      late.steps[s].prefetch.pop_back();
      break;
    }
  }
  EXPECT_NE(check_memory_plan(late, order, b, limit), "");
}

// SGD-MF through a plan: "device" slots are host buffers filled only by the plan's copies.
constexpr int k_k = 8;
constexpr float k_mean = 3.f, k_lr = 0.02f, k_reg = 0.05f;

struct Slots {
  std::vector<std::vector<char>> mem[k_block_kinds];
};

void copy(const Transfer& t, const BlockedRatings& r, std::vector<float>& W, std::vector<float>& H,
          Slots& slots, std::vector<char>& records_host) {
  char* slot = slots.mem[static_cast<int>(t.kind)][static_cast<std::size_t>(t.slot)].data();
  char* host = nullptr;
  if (t.kind == BlockKind::records) {
    host = records_host.data() + r.block_start[static_cast<std::size_t>(t.block)] * 12;
  } else {
    auto& rows = t.kind == BlockKind::user_rows ? W : H;
    const auto extent = t.kind == BlockKind::user_rows ? r.users : r.items;
    host = reinterpret_cast<char*>(rows.data() + block_first_key(t.block, extent, r.blocks) * k_k);
  }
  if (t.direction == Transfer::Direction::upload) {
    std::memcpy(slot, host, t.bytes);
  } else {
    std::memcpy(host, slot, t.bytes);
  }
}

void compute(const PlannedStep& step, const BlockedRatings& r, Slots& slots) {
  const int block = step.block.user_block * r.blocks + step.block.item_block;
  const auto n = static_cast<std::size_t>(r.block_records(block));
  const char* rec = slots.mem[0][static_cast<std::size_t>(step.slot[0])].data();
  auto* W = reinterpret_cast<float*>(slots.mem[1][static_cast<std::size_t>(step.slot[1])].data());
  auto* H = reinterpret_cast<float*>(slots.mem[2][static_cast<std::size_t>(step.slot[2])].data());
  const auto u0 = block_first_key(step.block.user_block, r.users, r.blocks);
  const auto i0 = block_first_key(step.block.item_block, r.items, r.blocks);
  for (std::size_t p = 0; p < n; ++p) { // records slot: n users, n items, n values
    std::int32_t u, i;
    float v;
    std::memcpy(&u, rec + p * 4, 4);
    std::memcpy(&i, rec + n * 4 + p * 4, 4);
    std::memcpy(&v, rec + n * 8 + p * 4, 4);
    sgd_update(W + (u - u0) * k_k, H + (i - i0) * k_k, k_k, v, k_mean, k_lr, k_reg);
  }
}

TEST(MemoryPlan, SgdThroughThePlanEqualsTheInMemoryRunBitwise) {
  const auto d = make_synthetic_ratings(500, 300, 20000, 1.0, 17);
  const int blocks = 4, epochs = 3;
  const auto r = block_ratings(d.user.data(), d.item.data(), d.value.data(), d.size(), d.users,
                               d.items, blocks);
  const BlockBytes bytes = block_bytes(r, k_k);
  const auto order = single_gpu_rotation_order(blocks, epochs);
  std::mt19937 rng(1);
  std::normal_distribution<float> nd(0.f, 0.1f);
  std::vector<float> W0(static_cast<std::size_t>(d.users) * k_k),
      H0(static_cast<std::size_t>(d.items) * k_k);
  for (float& x : W0) {
    x = nd(rng);
  }
  for (float& x : H0) {
    x = nd(rng);
  }
  std::vector<float> Wm = W0, Hm = H0; // in memory: the same order, every block resident
  for (const BlockId& b : order) {
    const int x = b.user_block * blocks + b.item_block;
    for (auto p = r.block_start[static_cast<std::size_t>(x)];
         p < r.block_start[static_cast<std::size_t>(x) + 1]; ++p) {
      const auto q = static_cast<std::size_t>(p);
      sgd_update(&Wm[static_cast<std::size_t>(r.user[q]) * k_k],
                 &Hm[static_cast<std::size_t>(r.item[q]) * k_k], k_k, r.value[q], k_mean, k_lr,
                 k_reg);
    }
  }
  auto records_host = records_slot_layout(r);
  for (std::uint64_t limit : {all_slots(bytes), total(bytes) / 2, total(bytes) / 4}) {
    const MemoryPlan plan = plan_memory(order, bytes, limit);
    ASSERT_EQ(check_memory_plan(plan, order, bytes, limit), "");
    Slots slots;
    for (int k = 0; k < k_block_kinds; ++k) {
      slots.mem[k].assign(static_cast<std::size_t>(plan.slots[k]),
                          std::vector<char>(plan.slot_bytes[k], 0x7f)); // garbage until uploaded
    }
    std::vector<float> W = W0, H = H0;
    for (const auto& step : plan.steps) {
      for (const auto& t : step.before) {
        copy(t, r, W, H, slots, records_host);
      }
      compute(step, r, slots);
      for (const auto& t : step.prefetch) {
        copy(t, r, W, H, slots, records_host);
      }
    }
    for (const auto& t : plan.write_back) {
      copy(t, r, W, H, slots, records_host);
    }
    EXPECT_EQ(std::memcmp(W.data(), Wm.data(), W.size() * sizeof(float)), 0) << "limit " << limit;
    EXPECT_EQ(std::memcmp(H.data(), Hm.data(), H.size() * sizeof(float)), 0) << "limit " << limit;
  }
}

} // namespace
