#pragma once
/// \file
/// The fixed summation order in which a device loop's per-record reduction partials are added on
/// the device (detail/CudaRunner.cuh), so that only one value per thread block, not one per
/// record, comes back to the host. Thread t of block b of a k_reduce_blocks x k_reduce_threads
/// grid adds positions t + b * k_reduce_threads, + k_reduce_blocks * k_reduce_threads, ... in
/// increasing order; each block then adds its threads' sums pairwise (x[t] += x[t + s] for s =
/// k_reduce_threads / 2, ..., 1); the host adds the blocks' sums in block order. The order
/// depends on nothing but the number of records, so the result is deterministic (not the
/// serial order's sum: as the CPU executors' per-worker partials, the same terms summed in
/// another fixed order). `reduce_in_device_order` replays it on the host (tests compare the
/// device with it). Not for user code.

#include "rotor/distarray/HostDevice.h"

#include <cstdint>
#include <vector>

namespace rotor::detail {

inline constexpr int k_reduce_blocks = 128;
inline constexpr int k_reduce_threads = 256; // a power of two (the pairwise block step)

/// Thread `thread` of the grid (block * k_reduce_threads + t): its positions of values[0..n) in
/// increasing order.
template <class R>
ROTOR_HOST_DEVICE R reduce_thread_sum(const R* values, std::int64_t n, std::int64_t thread) {
  R sum = R(0);
  const std::int64_t stride = std::int64_t{k_reduce_blocks} * k_reduce_threads;
  for (std::int64_t i = thread; i < n; i += stride) {
    sum += values[i];
  }
  return sum;
}

/// One pairwise step of a block over its threads' sums `x`: thread t < s adds x[t + s].
template <class R> ROTOR_HOST_DEVICE void reduce_pair_step(R* x, int t, int s) {
  if (t < s) {
    x[t] += x[t + s];
  }
}

/// The host replay of the device's order: the sum of values[0..n).
template <class R> R reduce_in_device_order(const R* values, std::int64_t n) {
  R total = R(0);
  std::vector<R> x(k_reduce_threads);
  for (int b = 0; b < k_reduce_blocks; ++b) {
    for (int t = 0; t < k_reduce_threads; ++t) {
      x[static_cast<std::size_t>(t)] =
          reduce_thread_sum(values, n, std::int64_t{b} * k_reduce_threads + t);
    }
    for (int s = k_reduce_threads / 2; s > 0; s /= 2) {
      for (int t = 0; t < s; ++t) {
        reduce_pair_step(x.data(), t, s);
      }
    }
    total += x[0];
  }
  return total;
}

} // namespace rotor::detail
