#pragma once
/// \file
/// What the engine reports while loops run: the metrics file, the trace and the progress bar
/// (Metrics.h, Trace.h, Progress.h) behind one probe. The engine calls the LoopProbe at a few
/// points of a loop execution (cell start/end, step start/end, communication phases); when
/// nothing observes, every call returns after testing one flag.

#include "Trace.h"
#include "rotor/runtime/Codegen.h"
#include "rotor/runtime/Session.h"
#include "rotor/runtime/detail/Engine.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace rotor::detail {

class Comm;

/// Observability flags seen on the command line (they win over ROTOR_* variables).
struct ObservabilityFlagsSeen {
  bool metrics = false, trace = false, label = false, quiet = false;
};
/// Parses --rotor-metrics=FILE, --rotor-trace=FILE, --rotor-label=NAME, --rotor-quiet[=0|1]
/// into `s`; false when `name` is none of them. Throws SettingsError on a bad value.
bool parse_observability_flag(const std::string& name, const std::string& value, bool has_value,
                              SessionSettings& s, ObservabilityFlagsSeen& seen);
/// Fills unset observability settings from ROTOR_METRICS, ROTOR_TRACE, ROTOR_LABEL, ROTOR_QUIET.
void observability_from_environment(SessionSettings& s, const ObservabilityFlagsSeen& seen);
/// The known flags, for the unknown-flag message.
const char* observability_flags_help();

/// Session start (collective): opens the metrics file on rank 0, starts the trace and the
/// progress bar. Throws std::runtime_error naming a file that cannot be written.
void start_observability(const SessionSettings& s, Comm& comm, int threads, const char* program);
/// Session end (collective): finishes an open loop, gathers and writes the trace, closes files.
void finish_observability(Comm& comm);
/// --rotor-quiet: no progress bar, no notes, no verbose lines.
bool quiet();

class LoopProbe {
public:
  using Clock = std::chrono::steady_clock;

  /// One execution of `spec` over `space` starts with `info.slots` workers on this rank
  /// (finishes a previous execution left open).
  void begin(const codegen::LoopSpec& spec, const ExecutionInfo& info, const SpaceAccess& space);
  bool on() const { return on_; }
  Clock::time_point now() const { return on_ ? Clock::now() : Clock::time_point{}; }
  /// This rank's share of the records once the layout has placed them (progress bar).
  void set_local_records(std::uint64_t n);

  /// Runs [begin, end) of the local records (or of `indices`) on `slot`, in chunks when the
  /// progress bar counts; stops when the runner says stop. From the worker's thread.
  bool run_records(CellRunner& runner, int slot, std::size_t begin, std::size_t end);
  bool run_list(CellRunner& runner, int slot, const std::size_t* indices, std::size_t count);
  /// A cell ran on `slot` from `start` to `end` (worker's thread).
  void cell(int slot, int block, Clock::time_point start, Clock::time_point end,
            std::uint64_t records);

  /// A step's workers start / have all finished (driver thread).
  void step_begin();
  void step_end();
  /// The driver thread communicated (or laid records out: SpanKind::layout) from `start` to
  /// `end` while no worker of this rank ran.
  void rank_phase(SpanKind kind, Clock::time_point start, Clock::time_point end,
                  std::int64_t bytes = -1);
  void add_bytes_moved(std::uint64_t bytes) { bytes_ += bytes; }
  /// The schedule's blocks per partition field (tiles included) and tiles per block.
  void set_blocks(std::vector<int> blocks, std::vector<int> tiles) {
    blocks_ = std::move(blocks);
    tiles_ = std::move(tiles);
  }
  /// execute() returns (what follows until finish() is the template's merge of reductions).
  void end_execute();
  /// The loop is over: gathers the workers' numbers to rank 0 (collective when metrics are on),
  /// writes the `loop` line, erases the progress bar.
  void finish();

private:
  /// Runs chunk [p, q) of `count` records by `run_chunk(p, q)`, counting each for the progress
  /// bar when it is on.
  template <class RunChunk>
  bool run_counted(int slot, std::size_t count, const RunChunk& run_chunk);
  struct alignas(64) Slot {
    double compute_s = 0, comm_s = 0, wait_s = 0, layout_s = 0;
    std::uint64_t records = 0, progress_counted = 0;
    bool ran = false; ///< in the current step
    Clock::time_point cell_start, cell_end;
  };

  bool on_ = false, open_ = false, executed_ = false;
  std::string loop_, plan_;
  bool redundant_ = false;
  int execution_ = 0;
  Clock::time_point start_, step_start_, execute_end_;
  std::uint64_t bytes_ = 0;
  std::vector<int> blocks_, tiles_;
  std::vector<Slot> slots_;
  std::map<std::string, int> executions_;
};

/// Points in the box [lo, hi).
inline std::uint64_t points_in_box(const std::vector<std::int64_t>& lo,
                                   const std::vector<std::int64_t>& hi) {
  std::uint64_t n = 1;
  for (std::size_t d = 0; d < lo.size(); ++d) {
    n *= hi[d] > lo[d] ? static_cast<std::uint64_t>(hi[d] - lo[d]) : 0;
  }
  return n;
}

/// The probe of the loop running now.
LoopProbe& loop_probe();

} // namespace rotor::detail
