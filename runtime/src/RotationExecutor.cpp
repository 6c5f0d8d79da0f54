// rotation: the first field's blocks stay with their worker, the other fields' blocks rotate
// between workers step by step (Schedule.cpp), so no two workers of a step touch the same block
// and each block travels while the workers compute (Mover.h).

#include "StepLoop.h"

namespace rotor::detail {
namespace {

class RotationExecutor final : public StepExecutor {
protected:
  StepShape shape(const LoopRun& run) const override {
    StepShape shape;
    shape.layout = distributed_layout(run, codegen::Kind::rotation);
    return shape;
  }
};

} // namespace

std::unique_ptr<Executor> make_rotation_executor() {
  return std::make_unique<RotationExecutor>();
}

} // namespace rotor::detail
