#pragma once
/// \file
/// CUDA kernels for SGD-MF, callable from plain C++ (this header includes no CUDA header). All
/// pointers in SgdDeviceProblem are device pointers. Every function throws std::runtime_error on
/// a CUDA error. Built only with -DROTOR_CUDA=ON (target rotor::gpu_kernels).

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

/// Waits for the device and throws on an earlier asynchronous error.
void synchronize();

} // namespace rotor::gpu
