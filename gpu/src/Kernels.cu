#include "rotor/gpu/Kernels.h"
#include "rotor/gpu/SgdUpdate.h"

#include <cuda_runtime.h>

#include <stdexcept>

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

void synchronize() {
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

} // namespace rotor::gpu
