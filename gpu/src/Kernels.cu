#include "rotor/gpu/Kernels.h"
#include "rotor/gpu/SgdUpdate.h"

#include <cooperative_groups.h>
#include <cuda/atomic>
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace rotor::gpu {
namespace {

constexpr int k_threads = 128;

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    throw std::runtime_error(std::string("CUDA: ") + what + ": " + cudaGetErrorString(e));
  }
}

int blocks_for(std::int64_t n) {
  const std::int64_t b = (n + k_threads - 1) / k_threads;
  return static_cast<int>(b < 65535 * 16 ? b : 65535 * 16);
}

__global__ void wave_kernel(const std::int32_t* __restrict__ user,
                            const std::int32_t* __restrict__ item, const float* __restrict__ value,
                            const std::int64_t* __restrict__ order, std::int64_t first,
                            std::int64_t end, float* W, float* H, int k, float mean, float lr,
                            float reg, float* err2) {
  for (std::int64_t p = first + blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
       p < end; p += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t r = order[p];
    const float e2 =
        sgd_update(W + static_cast<std::int64_t>(user[r]) * k,
                   H + static_cast<std::int64_t>(item[r]) * k, k, value[r], mean, lr, reg);
    if (err2 != nullptr) {
      err2[r] = e2;
    }
  }
}

__global__ void hogwild_kernel(const std::int32_t* __restrict__ user,
                               const std::int32_t* __restrict__ item,
                               const float* __restrict__ value, std::int64_t records, float* W,
                               float* H, int k, float mean, float lr, float reg, float* err2) {
  for (std::int64_t r = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
       r < records; r += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const float e2 =
        sgd_update(W + static_cast<std::int64_t>(user[r]) * k,
                   H + static_cast<std::int64_t>(item[r]) * k, k, value[r], mean, lr, reg);
    if (err2 != nullptr) {
      err2[r] = e2;
    }
  }
}

__global__ void error_kernel(const std::int32_t* __restrict__ user,
                             const std::int32_t* __restrict__ item, const float* __restrict__ value,
                             std::int64_t records, const float* W, const float* H, int k,
                             float mean, float* err2) {
  for (std::int64_t r = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
       r < records; r += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    err2[r] = sgd_error2(W + static_cast<std::int64_t>(user[r]) * k,
                         H + static_cast<std::int64_t>(item[r]) * k, k, value[r], mean);
  }
}

/// One wave [first, end) of a block with `lanes` threads per rating: rating group `group` of
/// `groups` takes records first + group, first + group + groups, ... Every thread of a warp runs
/// the same iterations (the loop bound is uniform), so the width-`lanes` shuffles see full warps.
__device__ void lane_wave(const SgdBlock& b, std::int64_t first, std::int64_t end,
                          std::int64_t group, std::int64_t groups, int lane, int lanes) {
  for (std::int64_t base = first; base < end; base += groups) {
    const std::int64_t p = base + group;
    const bool active = p < end;
    float* w = nullptr;
    float* h = nullptr;
    float dot = 0.f;
    if (active) {
      w = b.W + static_cast<std::int64_t>(__ldg(b.user + p) - b.user_base) * b.k;
      h = b.H + static_cast<std::int64_t>(__ldg(b.item + p) - b.item_base) * b.k;
      dot = sgd_lane_partial(w, h, b.k, lane, lanes);
    }
    for (int o = lanes / 2; o >= 1; o /= 2) { // the butterfly of sgd_update_lanes
      dot += __shfl_xor_sync(0xffffffffu, dot, o, lanes);
    }
    if (active) {
      const float e = __ldg(b.value + p) - b.mean - dot;
      sgd_lane_apply(w, h, b.k, lane, lanes, e, b.lr, b.reg);
      if (lane == 0 && b.err2 != nullptr) {
        b.err2[p] = e * e;
      }
    }
  }
}

/// All waves of one block in one launch. Head waves (grid_head): every thread block, grid.sync()
/// between waves (launched cooperatively). Tail waves (small): thread block 0 alone,
/// __syncthreads() between waves. Without grid_head the head waves ran before, one launch each.
__global__ void __launch_bounds__(k_lane_block_threads)
    block_waves_kernel(SgdBlock b, int lanes, bool grid_head) {
  const int per_block = static_cast<int>(blockDim.x) / lanes;
  const int lane = static_cast<int>(threadIdx.x) % lanes;
  const std::int64_t local = threadIdx.x / lanes;
  if (grid_head) {
    cooperative_groups::grid_group grid = cooperative_groups::this_grid();
    const std::int64_t group = static_cast<std::int64_t>(blockIdx.x) * per_block + local;
    const std::int64_t groups = static_cast<std::int64_t>(gridDim.x) * per_block;
    for (int w = 0; w < b.launch.tail_start; ++w) {
      lane_wave(b, b.wave_start[w], b.wave_start[w + 1], group, groups, lane, lanes);
      grid.sync();
    }
  }
  if (blockIdx.x != 0) {
    return;
  }
  for (int w = b.launch.tail_start; w < b.launch.waves; ++w) {
    lane_wave(b, b.wave_start[w], b.wave_start[w + 1], local, per_block, lane, lanes);
    __syncthreads();
  }
}

/// One wave across the grid (the head waves where cooperative launches are not available).
__global__ void __launch_bounds__(k_lane_block_threads)
    one_wave_kernel(SgdBlock b, int lanes, std::int64_t first, std::int64_t end) {
  const int per_block = static_cast<int>(blockDim.x) / lanes;
  const std::int64_t group =
      static_cast<std::int64_t>(blockIdx.x) * per_block + threadIdx.x / lanes;
  lane_wave(b, first, end, group, static_cast<std::int64_t>(gridDim.x) * per_block,
            static_cast<int>(threadIdx.x) % lanes, lanes);
}

__global__ void __launch_bounds__(k_lane_block_threads)
    hogwild_lanes_kernel(SgdBlock b, int lanes) {
  const int per_block = static_cast<int>(blockDim.x) / lanes;
  const std::int64_t group =
      static_cast<std::int64_t>(blockIdx.x) * per_block + threadIdx.x / lanes;
  lane_wave(b, 0, b.records, group, static_cast<std::int64_t>(gridDim.x) * per_block,
            static_cast<int>(threadIdx.x) % lanes, lanes);
}

/// Polls a key's counter until it reaches `value` (acquire); false after the spin limit or once
/// another group has stalled.
__device__ bool wait_for(std::int32_t* counter, std::int32_t value, std::int32_t* stalled) {
  cuda::atomic_ref<std::int32_t, cuda::thread_scope_device> done(*counter);
  for (std::int64_t spins = 0; done.load(cuda::memory_order_acquire) != value; ++spins) {
    if ((spins & 1023) == 1023) {
      cuda::atomic_ref<std::int32_t, cuda::thread_scope_device> flag(*stalled);
      if (flag.load(cuda::memory_order_relaxed) != 0) {
        return false;
      }
      if (spins > (std::int64_t{1} << 26)) {
        flag.store(1, cuda::memory_order_relaxed);
        return false;
      }
    }
  }
  return true;
}

/// sgd_dataflow's kernel: lane group `group` takes positions group, group + groups, ... in
/// increasing order; lane 0 waits for the keys' predecessors, the group applies the lane update
/// reading rows from L2 (other SMs wrote them, no barrier between), every lane fences its writes,
/// then lane 0 publishes the keys' counters.
__global__ void __launch_bounds__(k_lane_block_threads) dataflow_kernel(SgdDataflow d, int lanes) {
  const int lane = static_cast<int>(threadIdx.x) % lanes;
  const int sub = static_cast<int>(threadIdx.x % 32) / lanes;
  const unsigned mask = lanes == 32 ? 0xffffffffu : ((1u << lanes) - 1u) << (sub * lanes);
  const int per_block = static_cast<int>(blockDim.x) / lanes;
  const std::int64_t groups = static_cast<std::int64_t>(gridDim.x) * per_block;
  for (std::int64_t p = static_cast<std::int64_t>(blockIdx.x) * per_block + threadIdx.x / lanes;
       p < d.records; p += groups) {
    const std::int32_t u = __ldg(d.user + p), i = __ldg(d.item + p);
    int ok = 1;
    if (lane == 0) {
      ok = wait_for(d.user_done + u, __ldg(d.user_seq + p), d.stalled) &&
           wait_for(d.item_done + i, __ldg(d.item_seq + p), d.stalled);
    }
    if (__shfl_sync(mask, ok, 0, lanes) == 0) {
      return; // the whole group: a stall was reported
    }
    float* w = d.W + static_cast<std::int64_t>(u) * d.k;
    float* h = d.H + static_cast<std::int64_t>(i) * d.k;
    float dot = sgd_lane_partial<true>(w, h, d.k, lane, lanes);
    for (int o = lanes / 2; o >= 1; o /= 2) { // the butterfly of sgd_update_lanes
      dot += __shfl_xor_sync(mask, dot, o, lanes);
    }
    const float e = __ldg(d.value + p) - d.mean - dot;
    sgd_lane_apply<true>(w, h, d.k, lane, lanes, e, d.lr, d.reg);
    if (lane == 0 && d.err2 != nullptr) {
      d.err2[p] = e * e;
    }
    __threadfence(); // this lane's row writes reach L2 before the counters move
    __syncwarp(mask);
    if (lane == 0) {
      cuda::atomic_ref<std::int32_t, cuda::thread_scope_device>(d.user_done[u])
          .store(__ldg(d.user_seq + p) + 1, cuda::memory_order_release);
      cuda::atomic_ref<std::int32_t, cuda::thread_scope_device>(d.item_done[i])
          .store(__ldg(d.item_seq + p) + 1, cuda::memory_order_release);
    }
  }
}

int lanes_or_throw(int k) {
  const int lanes = sgd_lanes_for(k);
  if (lanes == 0) {
    throw std::invalid_argument("lane kernels need k % 4 == 0, got k = " + std::to_string(k));
  }
  return lanes;
}

/// Thread blocks of block_waves_kernel that fit on the device at once (a cooperative launch's
/// limit), computed once; 0 when the device cannot launch cooperatively.
int co_resident_blocks() {
  static const int blocks = [] {
    int device = 0, sms = 0, per_sm = 0, cooperative = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device),
          "cooperative launch attribute");
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "SM count");
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, block_waves_kernel,
                                                        k_lane_block_threads, 0),
          "occupancy");
    return cooperative == 0 ? 0 : std::max(1, sms * per_sm);
  }();
  return blocks;
}

} // namespace

int device_count(std::string* why) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    if (why != nullptr) {
      *why = cudaGetErrorString(e);
    }
    cudaGetLastError(); // clear it
    return 0;
  }
  if (n == 0 && why != nullptr) {
    *why = "no CUDA device";
  }
  return n;
}

std::string device_description() {
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  return std::string(prop.name) + ", " + std::to_string(prop.totalGlobalMem / (1024 * 1024)) +
         " MiB, sm_" + std::to_string(prop.major) + std::to_string(prop.minor) + ", " +
         std::to_string(prop.multiProcessorCount) + " SMs";
}

void sgd_waves(const SgdDeviceProblem& p, const std::int64_t* d_order,
               const std::vector<std::int64_t>& wave_start, float* d_err2) {
  for (std::size_t w = 0; w + 1 < wave_start.size(); ++w) {
    const std::int64_t n = wave_start[w + 1] - wave_start[w];
    if (n == 0) {
      continue;
    }
    wave_kernel<<<blocks_for(n), k_threads>>>(p.user, p.item, p.value, d_order, wave_start[w],
                                              wave_start[w + 1], p.W, p.H, p.k, p.mean, p.lr, p.reg,
                                              d_err2);
    check(cudaGetLastError(), "wave_kernel launch");
  }
}

void sgd_hogwild(const SgdDeviceProblem& p, float* d_err2) {
  if (p.records == 0) {
    return;
  }
  hogwild_kernel<<<blocks_for(p.records), k_threads>>>(p.user, p.item, p.value, p.records, p.W, p.H,
                                                       p.k, p.mean, p.lr, p.reg, d_err2);
  check(cudaGetLastError(), "hogwild_kernel launch");
}

void sgd_errors(const SgdDeviceProblem& p, float* d_err2) {
  if (p.records == 0) {
    return;
  }
  error_kernel<<<blocks_for(p.records), k_threads>>>(p.user, p.item, p.value, p.records, p.W, p.H,
                                                     p.k, p.mean, d_err2);
  check(cudaGetLastError(), "error_kernel launch");
}

void sgd_block_waves(const SgdBlock& block, void* stream) {
  const int lanes = lanes_or_throw(block.k);
  if (block.records == 0 || block.launch.waves == 0) {
    return;
  }
  const auto s = static_cast<cudaStream_t>(stream);
  const std::int64_t per_block = k_lane_block_threads / lanes;
  const std::int64_t wanted = (block.launch.grid_records + per_block - 1) / per_block;
  const int co_resident =
      block.launch.tail_start == 0 || !block.launch.cooperative ? 0 : co_resident_blocks();
  if (block.launch.tail_start > 0 && co_resident > 0) { // head and tail in one launch
    const int grid = static_cast<int>(std::min<std::int64_t>(co_resident, wanted));
    SgdBlock args = block;
    int lanes_arg = lanes;
    bool grid_head = true;
    void* params[] = {&args, &lanes_arg, &grid_head};
    check(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(block_waves_kernel), dim3(grid),
                                      dim3(k_lane_block_threads), params, 0, s),
          "block_waves_kernel cooperative launch");
    return;
  }
  std::vector<std::int64_t> starts; // no cooperative launch: one launch per head wave
  if (block.launch.tail_start > 0) {
    starts.resize(static_cast<std::size_t>(block.launch.tail_start) + 1);
    check(cudaMemcpyAsync(starts.data(), block.wave_start, starts.size() * sizeof(std::int64_t),
                          cudaMemcpyDeviceToHost, s),
          "wave offsets");
    check(cudaStreamSynchronize(s), "wave offsets");
  }
  for (int w = 0; w < block.launch.tail_start; ++w) {
    const int grid = static_cast<int>(std::min<std::int64_t>(wanted, 65535LL * 16));
    one_wave_kernel<<<grid, k_lane_block_threads, 0, s>>>(block, lanes, starts[w], starts[w + 1]);
    check(cudaGetLastError(), "one_wave_kernel launch");
  }
  block_waves_kernel<<<1, k_lane_block_threads, 0, s>>>(block, lanes, false);
  check(cudaGetLastError(), "block_waves_kernel launch");
}

void sgd_dataflow(const SgdDataflow& d) {
  const int lanes = lanes_or_throw(d.k);
  check(cudaMemset(d.user_done, 0, static_cast<std::size_t>(d.users) * sizeof(std::int32_t)),
        "cudaMemset");
  check(cudaMemset(d.item_done, 0, static_cast<std::size_t>(d.items) * sizeof(std::int32_t)),
        "cudaMemset");
  check(cudaMemset(d.stalled, 0, sizeof(std::int32_t)), "cudaMemset");
  if (d.records == 0) {
    return;
  }
  static const int co_resident = [] {
    int device = 0, sms = 0, per_sm = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "SM count");
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, dataflow_kernel,
                                                        k_lane_block_threads, 0),
          "occupancy");
    return std::max(1, sms * per_sm);
  }();
  const std::int64_t per_block = k_lane_block_threads / lanes;
  const int grid = static_cast<int>(
      std::min<std::int64_t>(co_resident, (d.records + per_block - 1) / per_block));
  SgdDataflow args = d;
  int lanes_arg = lanes;
  void* params[] = {&args, &lanes_arg};
  // cooperative: guarantees every thread block is resident, which the waits rely on
  check(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(dataflow_kernel), dim3(grid),
                                    dim3(k_lane_block_threads), params, 0, nullptr),
        "dataflow_kernel cooperative launch");
  check(cudaDeviceSynchronize(), "dataflow_kernel");
  std::int32_t stalled = 0;
  check(cudaMemcpy(&stalled, d.stalled, sizeof stalled, cudaMemcpyDeviceToHost), "stall flag");
  if (stalled != 0) {
    throw std::runtime_error("CUDA: dataflow_kernel: a position waited past the spin limit");
  }
}

void sgd_hogwild_lanes(const SgdDeviceProblem& p, float* d_err2) {
  const int lanes = lanes_or_throw(p.k);
  if (p.records == 0) {
    return;
  }
  SgdBlock b;
  b.user = p.user;
  b.item = p.item;
  b.value = p.value;
  b.records = p.records;
  b.W = p.W;
  b.H = p.H;
  b.k = p.k;
  b.mean = p.mean;
  b.lr = p.lr;
  b.reg = p.reg;
  b.err2 = d_err2;
  const std::int64_t per_block = k_lane_block_threads / lanes;
  const std::int64_t wanted = (p.records + per_block - 1) / per_block;
  const int grid = static_cast<int>(std::min<std::int64_t>(wanted, 65535LL * 16));
  hogwild_lanes_kernel<<<grid, k_lane_block_threads>>>(b, lanes);
  check(cudaGetLastError(), "hogwild_lanes_kernel launch");
}

void synchronize() {
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

} // namespace rotor::gpu
