// wavefront: ordered dependences between neighbouring blocks; rows of blocks stay with a worker
// and the diagonals of the block grid run as steps (a pipeline), records in key order.

#include "StepLoop.h"

namespace rotor::detail {
namespace {

class WavefrontExecutor final : public StepExecutor {
protected:
  StepShape shape(const LoopRun& run) const override {
    StepShape shape;
    shape.layout = distributed_layout(run, codegen::Kind::wavefront);
    return shape;
  }
};

} // namespace

std::unique_ptr<Executor> make_wavefront_executor() {
  return std::make_unique<WavefrontExecutor>();
}

} // namespace rotor::detail
