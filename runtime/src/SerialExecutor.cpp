// The serial executor: every rank runs every record (or point) in the dataset's order on one
// slot, so every rank ends with the same state and nothing moves between ranks.

#include "Executor.h"
#include "Observability.h"
#include "OrderLog.h"
#include "Replication.h"

namespace rotor::detail {
namespace {

class SerialExecutor final : public Executor {
public:
  std::string run(LoopRun& run) override {
    SpaceAccess& space = run.space;
    LoopProbe& probe = run.probe;
    const auto g0 = probe.now();
    replicate(space);
    if (!space.is_index_space()) {
      restore_order(space);
    }
    probe.rank_phase(SpanKind::layout, g0, probe.now());
    if (run.keep_order) {
      space.ensure_ids();
    }
    const auto c0 = probe.now();
    if (space.is_index_space()) {
      std::vector<std::int64_t> ext = space.extents();
      std::vector<std::int64_t> lo(ext.size(), 0);
      run.runner.run_box(0, lo.data(), ext.data());
      probe.cell(0, 0, c0, probe.now(), points_in_box(lo, ext));
    } else {
      probe.run_records(run.runner, 0, 0, space.local_count());
      probe.cell(0, 0, c0, probe.now(), space.local_count());
      if (run.keep_order) {
        record_loop_order(space.identity(), run.spec.file, run.spec.line, space.ids());
      }
    }
    const char* reason = run.spec.reason;
    return "serial on every rank" + (*reason ? " (" + std::string(reason) + ")" : std::string());
  }
};

} // namespace

std::unique_ptr<Executor> make_serial_executor() {
  return std::make_unique<SerialExecutor>();
}

} // namespace rotor::detail
