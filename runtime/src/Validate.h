#pragma once
/// \file
/// --rotor-validate (docs/user/running.md, "Validating a port"): each execution of a loop whose
/// plan promises a serial order (not serial, not data_parallel, no buffered arrays) runs as usual
/// while its order of records (or index-space points) is recorded; then rank 0 replays the body
/// serially in that order on a snapshot of the bound arrays, reductions and records taken before
/// the execution, and compares: arrays and records bitwise, reductions within
/// ReductionOps::tolerance. A difference stops every rank with one line naming the loop and the
/// first differing element. Locals the body captures by reference are not covered.

#include "rotor/runtime/Codegen.h"
#include "rotor/runtime/detail/Engine.h"
#include "rotor/runtime/detail/LoopFrame.h"

#include "ValidateDiff.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace rotor::detail {

class LoopValidation {
public:
  /// Starts validating this execution when --rotor-validate is on and the loop qualifies:
  /// snapshots the state (collective: a distributed dataset is gathered on every rank) and asks
  /// the engine for the order. Null otherwise (a note, once per loop, says why when it matters).
  static std::unique_ptr<LoopValidation> start(const codegen::LoopSpec& spec, SpaceAccess& space,
                                               LoopFrame& frame, const ExecutionInfo& info,
                                               bool buffered);
  LoopValidation(const codegen::LoopSpec& spec, SpaceAccess& space, LoopFrame& frame);
  ~LoopValidation();
  LoopValidation(const LoopValidation&) = delete;
  LoopValidation& operator=(const LoopValidation&) = delete;

  /// After the execution (arrays synced, reductions combined): replays and compares
  /// (collective). Stops the program on a difference; with --rotor-verbose prints one line.
  void finish(CellRunner& runner);

private:
  std::string replay_records(CellRunner& runner, RecordSet& replayed, double& replay_s);
  std::string replay_points(CellRunner& runner, double& replay_s);
  std::string compare_state(const RecordSet& replayed, const RecordSet& after);

  const codegen::LoopSpec& spec_;
  SpaceAccess& space_;
  LoopFrame& frame_;
  LoopFrame replay_;                 ///< slot 0: the snapshot's array copies and reduction values
  RecordSet before_;                 ///< every rank's records before the execution
  std::vector<std::uint64_t> order_; ///< the execution's global order (record ids)
};

} // namespace rotor::detail
