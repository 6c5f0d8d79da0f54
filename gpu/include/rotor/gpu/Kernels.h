#pragma once
/// \file
/// CUDA kernels for SGD-MF, callable from plain C++ (this header includes no CUDA header). All
/// pointers in SgdDeviceProblem are device pointers. Every function throws std::runtime_error on
/// a CUDA error. Built only with -DROTOR_CUDA=ON (target rotor::gpu_kernels).

#include "rotor/gpu/SgdUpdate.h"
#include "rotor/gpu/WaveSchedule.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace rotor::gpu {

/// CUDA devices present; 0 (with the reason in `why`) when there is no driver, no device or an
/// error. Never throws.
int device_count(std::string* why = nullptr);

/// Name and memory of device 0, for the bench's header line.
std::string device_description();

struct SgdDeviceProblem {
  const std::int32_t* user = nullptr; ///< per record
  const std::int32_t* item = nullptr; ///< per record
  const float* value = nullptr;       ///< per record
  std::int64_t records = 0;
  float* W = nullptr; ///< users x k, row-major
  float* H = nullptr; ///< items x k, row-major
  int k = 0;
  float mean = 0, lr = 0, reg = 0;
};

/// Wave-synchronous SGD: one launch per wave, one thread per record of the wave (records
/// order[wave_start[w] .. wave_start[w+1])), each calling sgd_update. No races: the result is
/// bitwise that of running the records serially in `order` (see WaveSchedule.h). `d_order` is
/// on the device, `wave_start` on the host. `d_err2` (device, per record index, may be null)
/// receives each record's squared error.
void sgd_waves(const SgdDeviceProblem& p, const std::int64_t* d_order,
               const std::vector<std::int64_t>& wave_start, float* d_err2);

/// Hogwild reference (cuMF_SGD style): all records in one launch, threads grid-striding over
/// them, updating W and H without synchronisation (races allowed, results not reproducible).
void sgd_hogwild(const SgdDeviceProblem& p, float* d_err2);

/// Squared error of every record (no update), into d_err2 (device, per record).
void sgd_errors(const SgdDeviceProblem& p, float* d_err2);

// ---- The lane kernels: k/4 lanes per rating, float4 rows (sgd_lane_partial/sgd_lane_apply) ----

/// Threads per thread block of the lane kernels.
constexpr int k_lane_block_threads = 256;

/// How one block's waves launch: waves [0, tail_start) across the grid (grid barrier between
/// waves, grid sized for grid_records), waves [tail_start, waves) in one thread block (block
/// barrier between waves): those have at most k_lane_block_threads / lanes records each.
struct WaveLaunch {
  int waves = 0;
  int tail_start = 0;
  /// Records one pass of the grid covers: the 90th percentile of the head waves' sizes, so most
  /// waves take one pass while the grid barrier (whose cost grows with the grid) stays small;
  /// larger waves loop.
  std::int64_t grid_records = 0;
  /// false: one launch per head wave, then one for the tail (what a device that cannot launch
  /// cooperatively gets anyway; the tests run both ways).
  bool cooperative = true;
};

/// The launch shape of a block with `wave_start` (offsets, waves + 1) for rows of k floats.
inline WaveLaunch wave_launch(const std::vector<std::int64_t>& wave_start, int k) {
  WaveLaunch l;
  const int lanes = std::max(sgd_lanes_for(k), 1);
  l.waves = wave_start.empty() ? 0 : static_cast<int>(wave_start.size()) - 1;
  l.tail_start = tail_start(wave_start, k_lane_block_threads / lanes);
  std::vector<std::int64_t> sizes;
  for (int w = 0; w < l.tail_start; ++w) {
    sizes.push_back(wave_start[w + 1] - wave_start[w]);
  }
  if (!sizes.empty()) {
    auto at = sizes.begin() + static_cast<std::ptrdiff_t>(sizes.size() * 9 / 10);
    std::nth_element(sizes.begin(), at, sizes.end());
    l.grid_records = *at;
  }
  return l;
}

/// One rotation block on the device: its records contiguous in wave order, its W and H rows
/// (row of key x at (x - base) * k). All pointers are device pointers.
struct SgdBlock {
  const std::int32_t* user = nullptr;
  const std::int32_t* item = nullptr;
  const float* value = nullptr;
  std::int64_t records = 0;
  const std::int64_t* wave_start = nullptr; ///< device copy of the block's wave offsets
  WaveLaunch launch;                        ///< from the host copy (wave_launch)
  float* W = nullptr;
  std::int32_t user_base = 0;
  float* H = nullptr;
  std::int32_t item_base = 0;
  int k = 0;
  float mean = 0, lr = 0, reg = 0;
  float* err2 = nullptr; ///< per record of the block (error before its update), may be null
};

/// Runs one block's waves with the lane kernel in ONE launch (a persistent cooperative kernel:
/// grid barrier between head waves, block barrier between tail waves) on `stream` (a
/// cudaStream_t; null: the default stream). Bitwise equal to sgd_update_lanes run serially over
/// the block's records in order (with --fmad=false). Throws std::invalid_argument when k % 4 != 0.
void sgd_block_waves(const SgdBlock& block, void* stream = nullptr);

/// The dataflow form of the lane kernel: no wave barriers. Position p (records in a serial order
/// that keeps each key's order, e.g. a BlockedRatings' wave order) runs once user_done[user] ==
/// user_seq[p] and item_done[item] == item_seq[p] (key_sequence), then sets both counters one
/// higher. A persistent grid takes positions in increasing order, so the lowest waiting position
/// always has its predecessors done (no deadlock while the grid is co-resident). Equal, bitwise,
/// to sgd_update_lanes over the positions in order. All pointers are device pointers.
struct SgdDataflow {
  const std::int32_t* user = nullptr;
  const std::int32_t* item = nullptr;
  const float* value = nullptr;
  const std::int32_t* user_seq = nullptr;
  const std::int32_t* item_seq = nullptr;
  std::int64_t records = 0;
  std::int32_t* user_done = nullptr; ///< users entries; zeroed by sgd_dataflow
  std::int32_t* item_done = nullptr; ///< items entries; zeroed by sgd_dataflow
  std::int32_t users = 0, items = 0;
  std::int32_t* stalled = nullptr; ///< one int; set when a wait exceeds its spin limit
  float* W = nullptr;
  float* H = nullptr;
  int k = 0;
  float mean = 0, lr = 0, reg = 0;
  float* err2 = nullptr; ///< per position, may be null
};

/// Runs all positions of `d` in one launch on the default stream and waits for it; throws
/// std::runtime_error when a position waited past the spin limit (a bug or a grid that was not
/// co-resident), std::invalid_argument when k % 4 != 0.
void sgd_dataflow(const SgdDataflow& d);

/// Hogwild with the lane kernel (cuMF_SGD style: k/4 lanes per rating, float4 rows, races
/// allowed), one launch over all records of `p`.
void sgd_hogwild_lanes(const SgdDeviceProblem& p, float* d_err2);

/// Waits for the device and throws on an earlier asynchronous error.
void synchronize();

} // namespace rotor::gpu
