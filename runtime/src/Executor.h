#pragma once
/// \file
/// The executors: one per plan kind, chosen by the kind the runtime runs (ExecutionInfo::kind).
/// An executor lays out the loop's records, runs its cells on this rank's worker slots, moves
/// array blocks between ranks and leaves every rank's copy of the written arrays whole.
/// Stepped plans share the step loop (StepLoop.h) and differ in the shape of their schedule.
/// docs/architecture.md, "Executors", shows where a new plan kind or device plugs in.

#include "rotor/runtime/detail/Engine.h"

#include <memory>
#include <string>
#include <vector>

namespace rotor::detail {

class LoopProbe;

/// One execution of a loop, as an executor sees it.
struct LoopRun {
  const codegen::LoopSpec& spec;
  SpaceAccess& space;
  std::vector<ArrayBinding>& arrays;  ///< the bound arrays, buffered ones excluded
  const std::vector<int>& spec_index; ///< arrays[i] is spec.arrays[spec_index[i]]
  CellRunner& runner;
  const ExecutionInfo& info;
  LoopProbe& probe;
  bool keep_order; ///< the records' order is recorded (--rotor-record-order, validation)
};

class Executor {
public:
  virtual ~Executor() = default;
  /// Runs the loop; returns what --rotor-verbose says about the run.
  virtual std::string run(LoopRun& run) = 0;
};

/// The executor of the plan kind `info.kind` (every kind has exactly one), or the GPU executor
/// when `info.gpu`.
std::unique_ptr<Executor> make_executor(const ExecutionInfo& info);

std::unique_ptr<Executor> make_serial_executor();
std::unique_ptr<Executor> make_independent_executor();
std::unique_ptr<Executor> make_data_parallel_executor();
std::unique_ptr<Executor> make_one_d_executor();
std::unique_ptr<Executor> make_rotation_executor();
std::unique_ptr<Executor> make_wavefront_executor();
std::unique_ptr<Executor> make_unimodular_executor();
std::unique_ptr<Executor> make_gpu_executor();

/// Whether the GPU executor runs this execution of the loop: a `device(gpu)` loop whose body was
/// compiled for a GPU (runner.device()), a plan it runs (independent, one_d, rotation), one
/// rank or a loop that writes only reductions over a distributed dataset, a CUDA device (on every
/// rank: collective when there are several) and enough device memory (`array_bytes`: the bound
/// arrays' bytes). When a
/// GPU-compiled device loop cannot, it says why once on stderr (`rotor: no CUDA device; device(gpu)
/// loop at FILE:LINE runs on the CPU`).
bool gpu_runs_loop(const codegen::LoopSpec& spec, SpaceAccess& space, const ExecutionInfo& info,
                   std::size_t array_bytes, CellRunner& runner);

/// The partition fields of the plan over `space` (one field for one-step plans; the first
/// dimension for a dense index space without fields).
std::vector<int> partition_fields(const codegen::LoopSpec& spec, const SpaceAccess& space);

/// A unimodular plan over records that runs across ranks: the records move to the rank of their
/// cell of the skewed keys (UnimodularExecutor.cpp says how the arrays are synced).
bool distributes_skewed(const codegen::LoopSpec& spec, const SpaceAccess& space);

} // namespace rotor::detail
