// unimodular: the plan's matrix skews the keys so that its base plan (one_d, wavefront,
// rotation) becomes legal over the skewed keys. Over records, the records move to the rank of
// their cell of the skewed keys. A cell's footprint is not a box of the arrays, so the written
// arrays are synced by difference (exact: in one step each changed element has one writer):
// base one_d once at the end (every conflict has the same first skewed key, so no other cell
// reads what a cell writes), base wavefront or rotation after every step (later cells read what
// earlier steps wrote). Dense index spaces, and other bases, run on every rank's threads over
// the whole (replicated) space in the skewed order.

#include "StepLoop.h"

namespace rotor::detail {
namespace {

using codegen::Kind;

class UnimodularExecutor final : public StepExecutor {
protected:
  StepShape shape(const LoopRun& run) const override {
    return run.info.placement == Placement::distributed ? across_ranks(run) : on_every_rank(run);
  }

private:
  static StepShape across_ranks(const LoopRun& run) {
    StepShape shape;
    shape.layout = distributed_layout(run, run.spec.base);
    shape.layout.matrix = &run.spec.matrix;
    shape.skewed_keys = true;
    shape.sync_each_step = run.spec.base != Kind::one_d;
    return shape;
  }

  static StepShape on_every_rank(const LoopRun& run) {
    StepShape shape;
    shape.on_every_rank = true;
    LayoutRequest& req = shape.layout;
    req.spec = &run.spec;
    req.kind = run.spec.base;
    req.field_keys = partition_fields(run.spec, run.space);
    req.threads = run.info.slots;
    req.ranks = 1;
    req.rank = 0;
    req.workers = req.threads;
    req.ordered = true;
    req.matrix = &run.spec.matrix;
    if (req.kind == Kind::serial || req.kind == Kind::unimodular) {
      req.kind = Kind::one_d; // a serial base: one worker, in the skewed order
      req.workers = 1;
    }
    return shape;
  }
};

} // namespace

std::unique_ptr<Executor> make_unimodular_executor() {
  return std::make_unique<UnimodularExecutor>();
}

} // namespace rotor::detail
