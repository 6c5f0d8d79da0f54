#pragma once
/// \file
/// The seam between the GPU executor (runtime/src/GpuExecutor.cpp, host C++ compiled without
/// CUDA) and a loop body compiled for a GPU. The runtime library never calls CUDA itself: a
/// translation unit that nvcc compiles (a `device(gpu)` loop, `rotor-cc --device=gpu`) gives its
/// loop's CellRunner a DeviceRunner (detail/CudaRunner.cuh) that keeps the records on the device
/// (detail/DeviceResidency.h), copies the arrays there and launches the body. The executor says
/// how to build the schedule on the host (conflict-free waves, rotor/gpu/WaveSchedule.h); the
/// runner calls it only when the records are not resident already. Not for user code.

#include "rotor/runtime/detail/DeviceResidency.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace rotor::detail {

/// One execution of a device loop, as the executor hands it to the DeviceRunner.
struct DeviceExecution {
  int slot = 0;            ///< the slot whose arrays and reduction partials the device uses
  std::vector<int> fields; ///< the conflict fields the waves are built over (part of the stamp)
  WaveScheduler schedule;  ///< the waves of the local records (called when not resident)
  bool writes_records = false;
  std::vector<bool> array_written; ///< per bound array: the loop may write it (downloaded after)
  std::size_t limit = 0; ///< device bytes the execution may use, resident records included
};

/// What an execution did (for --rotor-verbose and tests).
struct DeviceRunSummary {
  int waves = 0;
  std::int64_t largest_wave = 0;
  bool records_reused = false; ///< the records and their waves were resident from before
};

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
  /// Runs the local records on the device, wave by wave: the records of a wave share no key in
  /// any conflict field, so a wave is one launch with one thread per record. The records are
  /// staged in wave order (or reused when resident and unchanged: DeviceResidency.h), the slot's
  /// arrays uploaded, the reductions' per-record partials summed on the device in a fixed order
  /// (DeviceReduce.h) and added to the slot's partials, and the written arrays (and,
  /// with `writes_records`, the records) copied back to host memory before it returns. Throws
  /// std::runtime_error naming the CUDA error when a copy or launch fails.
  virtual DeviceRunSummary run(const DeviceExecution& execution) = 0;
};

} // namespace rotor::detail
