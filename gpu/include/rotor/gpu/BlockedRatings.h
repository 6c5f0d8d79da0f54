#pragma once
/// \file
/// Ratings laid out for GPU rotation (issue 18): cut into a B x B grid of blocks (user block x
/// item block, key_block), each block's records stored contiguously in its wave order, so a wave
/// is a contiguous range and a block is one contiguous copy (the records slot of MemoryPlan.h).
/// Pure C++17.

#include "rotor/gpu/MemoryPlan.h"
#include "rotor/gpu/WaveSchedule.h"

#include <cstdint>
#include <vector>

namespace rotor::gpu {

struct BlockedRatings {
  int blocks = 0; ///< B: a B x B grid
  std::int32_t users = 0, items = 0;
  std::vector<std::int32_t> user, item; ///< block by block, each block in wave order
  std::vector<float> value;
  std::vector<std::int64_t> source;      ///< input record index of each position
  std::vector<std::int64_t> block_start; ///< B * B + 1; block u * B + i at [start, next start)
  /// Per block: its waves as offsets into the block (size waves + 1, first 0, last its records).
  std::vector<std::vector<std::int64_t>> wave_start;

  std::int64_t block_records(int block) const {
    return block_start[static_cast<std::size_t>(block) + 1] -
           block_start[static_cast<std::size_t>(block)];
  }
};

/// First key of block `b` of [0, extent) cut into `blocks` (the inverse of key_block).
std::int64_t block_first_key(int b, std::int64_t extent, int blocks);

/// Lays records out in a blocks x blocks grid, each block in its build_waves order (with
/// `options`). Throws std::invalid_argument on a key out of range or blocks < 1.
BlockedRatings block_ratings(const std::int32_t* user, const std::int32_t* item, const float* value,
                             std::size_t records, std::int32_t users, std::int32_t items,
                             int blocks, const WaveOptions& options = {});

/// Bytes per block of `r` for factor rows of k floats: records 12 bytes each (user, item,
/// value), W and H blocks rows * k * 4.
BlockBytes block_bytes(const BlockedRatings& r, int k);

/// The records as MemoryPlan's records blocks: block by block, each block of n records as n
/// users, then n items, then n values (4 bytes each), so one block is one contiguous copy of
/// block_bytes(...).records[b] bytes at byte offset block_start[b] * 12.
std::vector<char> records_slot_layout(const BlockedRatings& r);

/// Per-key sequence numbers in position order: seq[p] = the number of positions before p with
/// the same key (key in [0, extent)). The dataflow kernel lets position p run once its user's and
/// its item's counters reach its two sequence numbers.
std::vector<std::int32_t> key_sequence(const std::vector<std::int32_t>& key, std::int32_t extent);

/// The single-GPU rotation order of one epoch: user block by user block, each visiting the item
/// blocks in rotation order (u, (u + p) mod B), so W stays while H rotates; `epochs` times.
std::vector<BlockId> single_gpu_rotation_order(int blocks, int epochs);

} // namespace rotor::gpu
