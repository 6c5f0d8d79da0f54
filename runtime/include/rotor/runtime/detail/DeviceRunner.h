#pragma once
/// \file
/// The seam between the GPU executor (runtime/src/GpuExecutor.cpp, host C++ compiled without
/// CUDA) and a loop body compiled for a GPU. The runtime library never calls CUDA itself: a
/// translation unit that nvcc compiles (a `device(gpu)` loop, `rotor-cc --device=gpu`) gives its
/// loop's CellRunner a DeviceRunner (detail/CudaRunner.cuh) that copies the records and arrays
/// to the device and launches the body there. The executor builds the schedule on the host
/// (conflict-free waves, rotor/gpu/WaveSchedule.h) and hands it over. Not for user code.

#include <cstddef>
#include <cstdint>
#include <string>

namespace rotor::detail {

class DeviceRunner {
public:
  virtual ~DeviceRunner() = default;
  /// Empty when this process has a CUDA device that can run the loop; else why not, in words
  /// ("no CUDA device", the CUDA error). Probed once per process.
  virtual std::string unavailable() = 0;
  /// Free device memory now, in bytes.
  virtual std::size_t free_bytes() = 0;
  /// Device bytes one execution over `records` local records needs besides the bound arrays
  /// (which the engine counts): the records and one partial per record and reduction.
  virtual std::size_t record_bytes_needed(std::size_t records) = 0;
  /// Runs the local records order[0..count) on the device, wave by wave: the records of wave w
  /// are order[wave_start[w] .. wave_start[w + 1]) and share no key in any conflict field, so a
  /// wave is one launch with one thread per record. Uses slot `slot`'s arrays, adds the
  /// reductions' per-record partials to slot `slot`'s partials in the order `order` lists them
  /// (deterministic: the sum of a serial run in that order) and writes the arrays (and, with
  /// `writes_records`, the records) back to host memory before it returns. Throws
  /// std::runtime_error naming the CUDA error when a copy or launch fails.
  virtual void run_waves(int slot, const std::int64_t* order, std::size_t count,
                         const std::int64_t* wave_start, int waves, bool writes_records) = 0;
};

} // namespace rotor::detail
