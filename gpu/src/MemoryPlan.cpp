#include "rotor/gpu/MemoryPlan.h"

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <string>

namespace rotor::gpu {

const char* block_kind_name(BlockKind kind) {
  switch (kind) {
  case BlockKind::records:
    return "records";
  case BlockKind::user_rows:
    return "W";
  case BlockKind::item_rows:
    return "H";
  }
  return "?";
}

namespace {

constexpr BlockKind k_kinds[k_block_kinds] = {BlockKind::records, BlockKind::user_rows,
                                              BlockKind::item_rows};

int block_of(const BlockId& b, BlockKind kind, int item_blocks) {
  switch (kind) {
  case BlockKind::records:
    return b.user_block * item_blocks + b.item_block;
  case BlockKind::user_rows:
    return b.user_block;
  case BlockKind::item_rows:
    return b.item_block;
  }
  return -1;
}

const std::vector<std::uint64_t>& sizes_of(const BlockBytes& bytes, BlockKind kind) {
  return kind == BlockKind::records     ? bytes.records
         : kind == BlockKind::user_rows ? bytes.user_rows
                                        : bytes.item_rows;
}

void check_inputs(const std::vector<BlockId>& order, const BlockBytes& bytes) {
  if (bytes.user_blocks < 1 || bytes.item_blocks < 1 ||
      bytes.records.size() != static_cast<std::size_t>(bytes.user_blocks) * bytes.item_blocks ||
      bytes.user_rows.size() != static_cast<std::size_t>(bytes.user_blocks) ||
      bytes.item_rows.size() != static_cast<std::size_t>(bytes.item_blocks)) {
    throw std::invalid_argument("plan_memory: BlockBytes sizes do not match a " +
                                std::to_string(bytes.user_blocks) + " x " +
                                std::to_string(bytes.item_blocks) + " grid");
  }
  for (std::size_t s = 0; s < order.size(); ++s) {
    const BlockId& b = order[s];
    if (b.user_block < 0 || b.user_block >= bytes.user_blocks || b.item_block < 0 ||
        b.item_block >= bytes.item_blocks) {
      throw std::invalid_argument("plan_memory: step " + std::to_string(s) + " names block (" +
                                  std::to_string(b.user_block) + ", " +
                                  std::to_string(b.item_block) + ") outside the grid");
    }
  }
}

/// Slots per kind within the limit (see plan_memory's comment for the order of growth).
void choose_slots(MemoryPlan& plan, const BlockBytes& bytes, std::uint64_t limit) {
  std::uint64_t one_step = 0;
  int distinct[k_block_kinds];
  for (BlockKind kind : k_kinds) {
    const auto& sizes = sizes_of(bytes, kind);
    const int k = static_cast<int>(kind);
    plan.slot_bytes[k] = *std::max_element(sizes.begin(), sizes.end());
    distinct[k] = static_cast<int>(sizes.size());
    plan.slots[k] = 1;
    one_step += plan.slot_bytes[k];
  }
  if (one_step > limit) {
    throw std::invalid_argument(
        "--rotor-gpu-memory=" + std::to_string(limit) +
        " bytes is too small for one rotation step: largest records block " +
        std::to_string(plan.slot_bytes[0]) + " + largest W block " +
        std::to_string(plan.slot_bytes[1]) + " + largest H block " +
        std::to_string(plan.slot_bytes[2]) + " = " + std::to_string(one_step) + " bytes");
  }
  std::uint64_t used = one_step;
  auto grow = [&](int k, int target) {
    while (plan.slots[k] < std::min(target, distinct[k]) && used + plan.slot_bytes[k] <= limit) {
      ++plan.slots[k];
      used += plan.slot_bytes[k];
    }
  };
  for (int k : {0, 2, 1}) {
    grow(k, 2);
  }
  grow(2, INT_MAX);
  grow(1, INT_MAX);
  grow(0, INT_MAX);
  plan.device_bytes = used;
}

/// The slots of one kind during planning: what each holds, whether it is dirty, which step last
/// computed on it, and each block's steps of use (for the farthest-next-use victim).
class SlotPool {
public:
  SlotPool(BlockKind kind, int slots, const std::vector<std::uint64_t>& sizes,
           const std::vector<BlockId>& order, int item_blocks)
      : kind_(kind), sizes_(sizes), block_(static_cast<std::size_t>(slots), -1),
        dirty_(static_cast<std::size_t>(slots), 0), last_step_(static_cast<std::size_t>(slots), -1),
        uses_(sizes.size()) {
    for (std::size_t s = 0; s < order.size(); ++s) {
      uses_[static_cast<std::size_t>(block_of(order[s], kind, item_blocks))].push_back(
          static_cast<int>(s));
    }
  }

  int slots() const { return static_cast<int>(block_.size()); }

  int find(int block) const {
    const auto it = std::find(block_.begin(), block_.end(), block);
    return it == block_.end() ? -1 : static_cast<int>(it - block_.begin());
  }

  /// The slot to load into for a use at `step`: an empty one, else the one whose block is next
  /// used last (never: last of all); never `avoid`. Ties: the lowest slot.
  int victim(int step, int avoid) const {
    int best = -1;
    long long best_use = -1;
    for (int s = 0; s < slots(); ++s) {
      if (s == avoid) {
        continue;
      }
      const long long use = block_[s] < 0 ? LLONG_MAX : next_use(block_[s], step);
      if (use > best_use) {
        best = s;
        best_use = use;
      }
    }
    return best;
  }

  /// Loads `block` into `slot`: a download of a dirty occupant, then the upload.
  void load(int slot, int block, std::vector<Transfer>& out, std::uint64_t& up,
            std::uint64_t& down) {
    evict(slot, out, down);
    out.push_back(transfer(Transfer::Direction::upload, block, slot));
    up += out.back().bytes;
    block_[slot] = block;
  }

  void evict(int slot, std::vector<Transfer>& out, std::uint64_t& down) {
    if (block_[slot] >= 0 && dirty_[slot]) {
      out.push_back(transfer(Transfer::Direction::download, block_[slot], slot));
      down += out.back().bytes;
    }
    dirty_[slot] = 0;
    block_[slot] = -1;
  }

  void compute(int slot, int step) {
    last_step_[slot] = step;
    dirty_[slot] = kind_ != BlockKind::records;
  }

private:
  long long next_use(int block, int step) const {
    const auto& u = uses_[static_cast<std::size_t>(block)];
    const auto it = std::lower_bound(u.begin(), u.end(), step);
    return it == u.end() ? LLONG_MAX - 1 : *it;
  }

  Transfer transfer(Transfer::Direction d, int block, int slot) const {
    Transfer t;
    t.direction = d;
    t.kind = kind_;
    t.block = block;
    t.slot = slot;
    t.after_step = last_step_[slot];
    t.bytes = sizes_[static_cast<std::size_t>(block)];
    return t;
  }

  BlockKind kind_;
  const std::vector<std::uint64_t>& sizes_;
  std::vector<int> block_;
  std::vector<char> dirty_;
  std::vector<int> last_step_;
  std::vector<std::vector<int>> uses_;
};

} // namespace

MemoryPlan plan_memory(const std::vector<BlockId>& order, const BlockBytes& bytes,
                       std::uint64_t limit_bytes) {
  check_inputs(order, bytes);
  MemoryPlan plan;
  choose_slots(plan, bytes, limit_bytes);
  std::vector<SlotPool> pools;
  for (BlockKind kind : k_kinds) {
    pools.emplace_back(kind, plan.slots[static_cast<int>(kind)], sizes_of(bytes, kind), order,
                       bytes.item_blocks);
  }
  const int steps = static_cast<int>(order.size());
  plan.steps.resize(order.size());
  for (int s = 0; s < steps; ++s) {
    PlannedStep& step = plan.steps[static_cast<std::size_t>(s)];
    step.block = order[static_cast<std::size_t>(s)];
    for (BlockKind kind : k_kinds) {
      SlotPool& pool = pools[static_cast<std::size_t>(kind)];
      const int block = block_of(step.block, kind, bytes.item_blocks);
      int slot = pool.find(block);
      if (slot < 0) { // not prefetched: load now, nothing to overlap with
        slot = pool.victim(s, -1);
        pool.load(slot, block, step.before, plan.uploaded_bytes, plan.downloaded_bytes);
      }
      step.slot[static_cast<int>(kind)] = slot;
    }
    for (BlockKind kind : k_kinds) {
      pools[static_cast<std::size_t>(kind)].compute(step.slot[static_cast<int>(kind)], s);
    }
    if (s + 1 == steps) {
      break;
    }
    for (BlockKind kind : k_kinds) { // double buffering: the next step's blocks during this one
      SlotPool& pool = pools[static_cast<std::size_t>(kind)];
      const int block = block_of(order[static_cast<std::size_t>(s) + 1], kind, bytes.item_blocks);
      if (pool.slots() < 2 || pool.find(block) >= 0) {
        continue;
      }
      const int slot = pool.victim(s + 1, step.slot[static_cast<int>(kind)]);
      pool.load(slot, block, step.prefetch, plan.uploaded_bytes, plan.downloaded_bytes);
    }
  }
  for (SlotPool& pool : pools) {
    for (int slot = 0; slot < pool.slots(); ++slot) {
      pool.evict(slot, plan.write_back, plan.downloaded_bytes);
    }
  }
  return plan;
}

namespace {

/// Replays a plan's transfers and computes on CPU (check_memory_plan).
class PlanReplay {
public:
  PlanReplay(const MemoryPlan& plan, const BlockBytes& bytes) : plan_(plan), bytes_(bytes) {
    for (BlockKind kind : k_kinds) {
      const int k = static_cast<int>(kind);
      slot_block_[k].assign(static_cast<std::size_t>(plan.slots[k]), -1);
      slot_version_[k].assign(static_cast<std::size_t>(plan.slots[k]), 0);
      slot_last_[k].assign(static_cast<std::size_t>(plan.slots[k]), -1);
      host_version_[k].assign(sizes_of(bytes, kind).size(), 0);
      latest_[k].assign(sizes_of(bytes, kind).size(), 0);
    }
  }

  /// Applies `t`, a copy that serves step `for_step` (-1: the final write-back).
  std::string apply(const Transfer& t, int for_step, const std::vector<BlockId>& order,
                    const int* busy_slots) {
    const int k = static_cast<int>(t.kind);
    const std::string where = std::string(block_kind_name(t.kind)) + " block " +
                              std::to_string(t.block) + " slot " + std::to_string(t.slot);
    if (t.slot < 0 || t.slot >= plan_.slots[k] || t.block < 0 ||
        t.block >= static_cast<int>(host_version_[k].size())) {
      return "transfer out of range: " + where;
    }
    if (t.bytes != sizes_of(bytes_, t.kind)[static_cast<std::size_t>(t.block)] ||
        t.bytes > plan_.slot_bytes[k]) {
      return "wrong size or larger than its slot: " + where;
    }
    if (busy_slots != nullptr && busy_slots[k] == t.slot) {
      return "prefetch touches a slot its step computes on: " + where;
    }
    if (t.after_step < slot_last_[k][static_cast<std::size_t>(t.slot)]) {
      return "copy does not wait for the last compute on its slot: " + where;
    }
    auto& held = slot_block_[k][static_cast<std::size_t>(t.slot)];
    auto& version = slot_version_[k][static_cast<std::size_t>(t.slot)];
    if (t.direction == Transfer::Direction::download) {
      if (held != t.block) {
        return "download of a block its slot does not hold: " + where;
      }
      host_version_[k][static_cast<std::size_t>(t.block)] = version;
      return {};
    }
    if (held >= 0 && version > host_version_[k][static_cast<std::size_t>(held)]) {
      return "upload overwrites dirty " + std::string(block_kind_name(t.kind)) + " block " +
             std::to_string(held) + " before its download: " + where;
    }
    for (std::size_t s = 0; s < slot_block_[k].size(); ++s) {
      if (slot_block_[k][s] == t.block && static_cast<int>(s) != t.slot) {
        return "block uploaded while resident in another slot: " + where;
      }
    }
    if (for_step < 0 || for_step >= static_cast<int>(order.size()) ||
        block_of(order[static_cast<std::size_t>(for_step)], t.kind, bytes_.item_blocks) !=
            t.block) {
      return "upload out of the streaming order (not the block its step needs): " + where;
    }
    held = t.block;
    version = host_version_[k][static_cast<std::size_t>(t.block)];
    return {};
  }

  std::string compute(int s, const PlannedStep& step, const std::vector<BlockId>& order) {
    for (BlockKind kind : k_kinds) {
      const int k = static_cast<int>(kind);
      const int slot = step.slot[k];
      const int block = block_of(order[static_cast<std::size_t>(s)], kind, bytes_.item_blocks);
      if (slot < 0 || slot >= plan_.slots[k] ||
          slot_block_[k][static_cast<std::size_t>(slot)] != block) {
        return "step " + std::to_string(s) + ": " + block_kind_name(kind) + " block " +
               std::to_string(block) + " is not in slot " + std::to_string(slot);
      }
      slot_last_[k][static_cast<std::size_t>(slot)] = s;
      if (kind != BlockKind::records) {
        latest_[k][static_cast<std::size_t>(block)] =
            ++slot_version_[k][static_cast<std::size_t>(slot)];
      }
    }
    return {};
  }

  std::string all_written_back() const {
    for (int k = 1; k < k_block_kinds; ++k) {
      for (std::size_t b = 0; b < latest_[k].size(); ++b) {
        if (host_version_[k][b] != latest_[k][b]) {
          return std::string(block_kind_name(k_kinds[k])) + " block " + std::to_string(b) +
                 " is not written back";
        }
      }
    }
    return {};
  }

private:
  const MemoryPlan& plan_;
  const BlockBytes& bytes_;
  std::vector<int> slot_block_[k_block_kinds];
  std::vector<int> slot_version_[k_block_kinds];
  std::vector<int> slot_last_[k_block_kinds];
  std::vector<int> host_version_[k_block_kinds];
  std::vector<int> latest_[k_block_kinds];
};

} // namespace

std::string check_memory_plan(const MemoryPlan& plan, const std::vector<BlockId>& order,
                              const BlockBytes& bytes, std::uint64_t limit_bytes) {
  std::uint64_t device = 0;
  for (int k = 0; k < k_block_kinds; ++k) {
    device += static_cast<std::uint64_t>(plan.slots[k]) * plan.slot_bytes[k];
  }
  if (device != plan.device_bytes || device > limit_bytes) {
    return "slots take " + std::to_string(device) + " bytes, device_bytes " +
           std::to_string(plan.device_bytes) + ", limit " + std::to_string(limit_bytes);
  }
  if (plan.steps.size() != order.size()) {
    return "plan has " + std::to_string(plan.steps.size()) + " steps for an order of " +
           std::to_string(order.size());
  }
  PlanReplay replay(plan, bytes);
  for (std::size_t s = 0; s < order.size(); ++s) {
    const PlannedStep& step = plan.steps[s];
    for (const Transfer& t : step.before) {
      if (auto e = replay.apply(t, static_cast<int>(s), order, nullptr); !e.empty()) {
        return "step " + std::to_string(s) + " before: " + e;
      }
    }
    if (auto e = replay.compute(static_cast<int>(s), step, order); !e.empty()) {
      return e;
    }
    for (const Transfer& t : step.prefetch) {
      if (auto e = replay.apply(t, static_cast<int>(s) + 1, order, step.slot); !e.empty()) {
        return "step " + std::to_string(s) + " prefetch: " + e;
      }
    }
  }
  for (const Transfer& t : plan.write_back) {
    if (t.direction != Transfer::Direction::download) {
      return "write_back uploads";
    }
    if (auto e = replay.apply(t, -1, order, nullptr); !e.empty()) {
      return "write_back: " + e;
    }
  }
  return replay.all_written_back();
}

} // namespace rotor::gpu
