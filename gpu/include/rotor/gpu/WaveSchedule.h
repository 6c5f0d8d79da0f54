#pragma once
/// \file
/// Host-side schedule construction for GPU workers (issue 18). Pure C++17, no CUDA.
///
/// A rotation block's records are grouped into *waves*: no two records of one wave share a user
/// or an item, so a GPU can apply a whole wave at once (one thread per record) without races. The
/// waves, run in order 0, 1, ..., and each wave's records in record order, form a permutation of
/// the block's records in which every key's records keep their relative order; for a loop whose
/// records touch only their keys' rows (SGD-MF) that permutation gives the same result, bitwise,
/// as the serial run in record order.
///
/// Between blocks, G GPUs follow a rotation over G x G blocks: at sub-epoch step p GPU g runs
/// block (g, (g + p) mod G), so blocks of one step share no user block and no item block.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace rotor::gpu {

/// Waves as compressed rows: the records of wave w are order[wave_start[w] .. wave_start[w+1]).
struct Waves {
  std::vector<std::int64_t> order;      ///< record indices (into the block's records), wave by wave
  std::vector<std::int64_t> wave_start; ///< size waves() + 1
  std::vector<std::int32_t> wave_of;    ///< wave of each record (by record index)

  int waves() const { return wave_start.empty() ? 0 : static_cast<int>(wave_start.size()) - 1; }
  std::int64_t wave_size(int w) const { return wave_start[w + 1] - wave_start[w]; }
  std::int64_t largest_wave() const;
};

struct WaveOptions {
  /// Records per wave at most (0: no limit). A full wave sends a record to the next wave with
  /// room, later than its keys' earlier records, so every key's order is still kept.
  std::int64_t max_wave_size = 0;
};

/// Greedy wave colouring in record order: record r goes to the first wave (with room) after the
/// waves of the earlier records of its user and of its item. Keys are dense non-negative ints
/// (user < users, item < items). Records of a hot key land in consecutive waves, one per wave,
/// which is the fewest any conflict-free order-keeping schedule can use for that key.
/// Deterministic: depends only on the keys and the options. Throws std::invalid_argument on a key
/// out of range.
Waves build_waves(const std::int32_t* user, const std::int32_t* item, std::size_t records,
                  std::int32_t users, std::int32_t items, const WaveOptions& options = {});

/// The same greedy colouring over any number of key fields (the GPU executor's schedule for a
/// loop's conflict fields: both keys of a rotation, the one key of one_d, none for independent):
/// record r goes to the first wave after the waves of the earlier records sharing a key value
/// with it in any field. `keys` is row-major, `fields` values per record; keys may be any int64
/// (hashed). With no fields every record is in wave 0.
Waves build_key_waves(const std::int64_t* keys, std::size_t records, int fields);

/// Checks a Waves against its keys: every record exactly once, no wave with two records of one
/// user or one item, each key's records in increasing record index along the order. Returns an
/// empty string when valid, otherwise the first problem found.
std::string check_waves(const Waves& waves, const std::int32_t* user, const std::int32_t* item,
                        std::size_t records, std::int32_t users, std::int32_t items);

/// The first wave of the tail: the waves from it on all have at most `small` records (waves()
/// when the last wave is larger). The persistent wave kernel runs the waves before it across the
/// whole grid with a grid barrier between waves, and the tail in one thread block with a block
/// barrier between waves (a skewed block's many small waves then cost no grid-wide sync).
int tail_start(const std::vector<std::int64_t>& wave_start, std::int64_t small);

/// One block of a G x G rotation grid.
struct BlockId {
  int user_block = 0;
  int item_block = 0;
};

/// The block order of one sub-epoch for `gpus` GPUs: steps[p][g] is the block GPU g runs at step
/// p (p < gpus): (g, (g + p) mod gpus). Every block once per epoch; no two GPUs of one step share
/// a user block or an item block.
std::vector<std::vector<BlockId>> rotation_block_order(int gpus);

/// Block of a key in [0, extent) split into `blocks` equal ranges: key * blocks / extent.
int key_block(std::int64_t key, std::int64_t extent, int blocks);

/// Record indices per block (block index user_block * blocks + item_block), each in record order.
std::vector<std::vector<std::int64_t>> split_into_blocks(const std::int32_t* user,
                                                         const std::int32_t* item,
                                                         std::size_t records, std::int32_t users,
                                                         std::int32_t items, int blocks);

} // namespace rotor::gpu
