#pragma once
/// \file
/// The step loop every stepped plan (independent, data_parallel, one_d, rotation, wavefront,
/// unimodular) shares: lay the records out by cell, then per step complete the block receives
/// the step needs, run the step's cells on this rank's slots, post the blocks the step
/// produced, and at the end make every rank's arrays whole. A plan kind only says the shape of
/// its schedule (StepShape).

#include "Executor.h"
#include "Layout.h"

namespace rotor::detail {

/// What differs between stepped plans: how their records are laid out and how their written
/// arrays are kept equal across ranks.
struct StepShape {
  LayoutRequest layout;
  /// Every rank runs every record on its own threads (the records are made whole on each rank
  /// first): skewed orders that do not distribute.
  bool on_every_rank = false;
  /// The schedule's fields are skewed keys: no array's blocks follow them, so written arrays are
  /// synced by difference...
  bool skewed_keys = false;
  /// ...after every step (later cells read what earlier steps wrote), not only at the end.
  bool sync_each_step = false;
};

/// Blocks per partition field (tiles included) of this process's last stepped execution over
/// records (tests).
std::vector<int>& last_blocks();

/// The layout of plan `kind` over ranks x slots workers, this rank's share.
LayoutRequest distributed_layout(const LoopRun& run, codegen::Kind kind);

class StepExecutor : public Executor {
public:
  std::string run(LoopRun& run) final;

protected:
  virtual StepShape shape(const LoopRun& run) const = 0;
};

} // namespace rotor::detail

namespace rotor::detail {

/// The shape of a plan whose records may run in any order and on any worker (independent,
/// data_parallel; IndependentExecutor.cpp).
StepShape any_order_shape(const LoopRun& run, codegen::Kind kind);

} // namespace rotor::detail
