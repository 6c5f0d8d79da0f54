#pragma once
/// \file
/// SGD-MF rotation on one GPU whose device memory holds only part of the run (issue 18, item 3):
/// follows plan_memory (MemoryPlan.h) with two CUDA streams, the copies for the next step on one
/// overlapping the current step's sgd_block_waves on the other. Callable from plain C++ (no CUDA
/// header); built only with -DROTOR_CUDA=ON (rotor::gpu_kernels).

#include "rotor/gpu/BlockedRatings.h"
#include "rotor/gpu/MemoryPlan.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace rotor::gpu {

struct StreamedRun {
  MemoryPlan plan;
  double seconds = 0;               ///< first copy to last write-back, wall time of the device work
  std::uint64_t metadata_bytes = 0; ///< the blocks' wave offsets, resident outside the limit
};

/// The in-memory counterpart: every block's records (and wave offsets) uploaded once; `run`
/// applies blocks in a given order with sgd_block_waves to device-resident W and H.
class ResidentRotation {
public:
  /// Uploads `r` (records in wave order, wave offsets) for rows of k floats; `r` must outlive
  /// this object (its block offsets are read on each run).
  ResidentRotation(const BlockedRatings& r, int k);
  ~ResidentRotation();
  ResidentRotation(const ResidentRotation&) = delete;
  ResidentRotation& operator=(const ResidentRotation&) = delete;

  /// Runs the blocks of `order` one after another on the default stream. d_W (users x k) and
  /// d_H (items x k) are device pointers; d_err2 (device, per record position of r, may be null)
  /// receives each record's squared error before its update.
  void run(const std::vector<BlockId>& order, float* d_W, float* d_H, float mean, float lr,
           float reg, float* d_err2) const;

  /// Device bytes of the records and wave offsets.
  std::uint64_t device_bytes() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Runs `order` over `r` (every block's records in wave order) with sgd_block_waves, keeping at
/// most `limit_bytes` of blocks on the device; W (users x k) and H (items x k), row-major on the
/// host, are read and updated in place. The result is bitwise that of the same order run with
/// every block resident (same kernel, same order). Throws std::invalid_argument for a limit below
/// one step (plan_memory's message), std::runtime_error on a CUDA error.
StreamedRun run_streamed_rotation(const BlockedRatings& r, std::vector<float>& W,
                                  std::vector<float>& H, int k, float mean, float lr, float reg,
                                  const std::vector<BlockId>& order, std::uint64_t limit_bytes);

} // namespace rotor::gpu
