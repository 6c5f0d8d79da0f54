// one_d: conflicts only between records with the same value of the first field, so each worker
// runs the records of its block of that field in one step; arrays indexed by the field stay with
// their block.

#include "StepLoop.h"

namespace rotor::detail {
namespace {

class OneDExecutor final : public StepExecutor {
protected:
  StepShape shape(const LoopRun& run) const override {
    StepShape shape;
    shape.layout = distributed_layout(run, codegen::Kind::one_d);
    return shape;
  }
};

} // namespace

std::unique_ptr<Executor> make_one_d_executor() {
  return std::make_unique<OneDExecutor>();
}

} // namespace rotor::detail
