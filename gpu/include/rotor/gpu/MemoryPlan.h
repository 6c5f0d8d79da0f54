#pragma once
/// \file
/// Memory plan for a GPU whose blocks do not all fit in device memory (issue 18, item 3). Pure
/// C++17, no CUDA: the device executor and bench/cuda follow it, tests/gpu checks it on CPU.
///
/// A run is a known order of steps; step s computes one rotation block (u, i), which needs three
/// device-resident blocks: the records of (u, i), the W rows of user block u and the H rows of
/// item block i. W and H blocks are written by the step (dirty); records are read only.
///
/// Device memory is cut into fixed slots per kind (records, W, H), each slot as large as the
/// largest block of its kind, so blocks never fragment memory and a slot is a fixed device
/// address. With two or more slots of a kind, the next step's block of that kind is uploaded
/// into another slot while the current step computes (double buffering along the known order);
/// a slot's victim is the resident block whose next use is farthest (Belady: optimal for a known
/// order), and a dirty victim is downloaded before the slot is reused.
///
///   MemoryPlan plan = plan_memory(order, bytes, limit);
///   for each step s: run plan.steps[s].before (blocking), compute s from its slots while
///   plan.steps[s].prefetch copies for step s + 1; finally run plan.write_back.

#include "rotor/gpu/WaveSchedule.h"

#include <cstdint>
#include <string>
#include <vector>

namespace rotor::gpu {

enum class BlockKind { records = 0, user_rows = 1, item_rows = 2 };
constexpr int k_block_kinds = 3;
const char* block_kind_name(BlockKind kind);

/// Bytes of every block of a user_blocks x item_blocks grid.
struct BlockBytes {
  int user_blocks = 0;
  int item_blocks = 0;
  std::vector<std::uint64_t> records;   ///< user_blocks * item_blocks, index u * item_blocks + i
  std::vector<std::uint64_t> user_rows; ///< W block of each user block
  std::vector<std::uint64_t> item_rows; ///< H block of each item block
};

/// One copy between host and device. `block` indexes its kind (records: u * item_blocks + i).
struct Transfer {
  enum class Direction { upload, download };
  Direction direction = Direction::upload;
  BlockKind kind = BlockKind::records;
  int block = 0;
  int slot = 0;
  /// The last step that computed on this slot before the copy (-1: none): the copy must wait for
  /// that step's compute to finish.
  int after_step = -1;
  std::uint64_t bytes = 0;
};

struct PlannedStep {
  BlockId block;
  int slot[k_block_kinds] = {0, 0, 0}; ///< slot of each kind the step computes on
  /// Copies that must finish before this step computes and that nothing overlapped (the first
  /// step's uploads; later ones only for a kind with a single slot).
  std::vector<Transfer> before;
  /// Copies for the next step that run while this step computes (never touch this step's slots).
  std::vector<Transfer> prefetch;
};

struct MemoryPlan {
  int slots[k_block_kinds] = {0, 0, 0};                   ///< slots per kind
  std::uint64_t slot_bytes[k_block_kinds] = {0, 0, 0};    ///< bytes of one slot per kind
  std::uint64_t device_bytes = 0;                         ///< sum of slots * slot_bytes
  std::vector<PlannedStep> steps;                         ///< one per step of the order
  std::vector<Transfer> write_back;                       ///< dirty blocks left after the last step
  std::uint64_t uploaded_bytes = 0, downloaded_bytes = 0; ///< totals over the plan
};

/// Plans `order` (the steps, e.g. rotation_block_order flattened, repeated per epoch) within
/// `limit_bytes` of device memory (--rotor-gpu-memory=BYTES). Slots: one per kind must fit,
/// else std::invalid_argument naming the limit and the three largest block sizes; then two per
/// kind (records, H, W in that order) while they fit; then every W and H block (dirty blocks
/// kept need no write-back); then as many record slots as fit. Deterministic.
MemoryPlan plan_memory(const std::vector<BlockId>& order, const BlockBytes& bytes,
                       std::uint64_t limit_bytes);

/// Replays a plan on CPU, tracking slot contents and block versions: every step's blocks are in
/// its slots when it computes, prefetches never touch the computing step's slots, no dirty block
/// is overwritten before it is downloaded, every block fits its slot, device_bytes <= limit,
/// after write_back the host holds every W and H block's last version, and records blocks are
/// uploaded in the order the steps need them. Returns "" when valid, else the first problem.
std::string check_memory_plan(const MemoryPlan& plan, const std::vector<BlockId>& order,
                              const BlockBytes& bytes, std::uint64_t limit_bytes);

} // namespace rotor::gpu
