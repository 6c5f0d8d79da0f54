// data_parallel: the records run in any order on any worker, like independent; the arrays the
// loop marks buffered(...) are worker-private copies that the loop template merges (sum, mean or
// apply) after each flush, step or at the end (docs/design/buffered.md), so only the bound,
// unbuffered arrays reach this executor.

#include "StepLoop.h"

namespace rotor::detail {
namespace {

class DataParallelExecutor final : public StepExecutor {
protected:
  StepShape shape(const LoopRun& run) const override {
    return any_order_shape(run, codegen::Kind::data_parallel);
  }
};

} // namespace

std::unique_ptr<Executor> make_data_parallel_executor() {
  return std::make_unique<DataParallelExecutor>();
}

} // namespace rotor::detail
