// independent: no two records conflict, so each worker runs a share of the records in one step.

#include "StepLoop.h"

namespace rotor::detail {
namespace {

class IndependentExecutor final : public StepExecutor {
protected:
  StepShape shape(const LoopRun& run) const override {
    return any_order_shape(run, codegen::Kind::independent);
  }
};

} // namespace

StepShape any_order_shape(const LoopRun& run, codegen::Kind kind) {
  StepShape shape;
  shape.layout = distributed_layout(run, kind);
  if (!run.space.is_index_space() && !run.spec.ordered) {
    // valid in any record order and distribution: the records stay as an earlier loop laid
    // them out (no relayout when plans alternate over one dataset); each rank's threads split
    // its records, and written arrays are synced by difference
    shape.layout.field_keys.clear();
  }
  return shape;
}

std::unique_ptr<Executor> make_independent_executor() {
  return std::make_unique<IndependentExecutor>();
}

} // namespace rotor::detail
