#pragma once
/// \file
/// Buffered arrays, the runtime's side: flush and exchange settings (flags), statistics, test
/// events, the per-loop plan, the merge's communication and the flush coordinator (a merger thread
/// per rank). The user API is rotor/runtime/Buffered.h; what a rewritten loop instantiates is
/// rotor/runtime/detail/BufferedLoop.h; one array's merge is BufferedMerge.h.

#include "rotor/runtime/Buffered.h"
#include "rotor/runtime/detail/BufferedLoop.h"
#include "rotor/runtime/detail/Engine.h"

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace rotor::detail {

class BufferedMerge;

/// The flush and exchange settings (flags and ROTOR_FLUSH_EVERY / ROTOR_STALENESS /
/// ROTOR_BUFFERED_EXCHANGE). Tests may change them between loops.
struct BufferedSettings {
  enum class Exchange { automatic, dense, sparse };
  std::int64_t flush_every = 0; ///< records per worker between flushes; 0: at the loop's end
  int staleness = 0;            ///< SSP bound s (with flush_every > 0)
  Exchange exchange = Exchange::automatic;
  /// --rotor-worker-buffer: dense copies or sparse hash maps per worker (same three choices;
  /// automatic: buffered_sparse_buffers()).
  Exchange worker_buffer = Exchange::automatic;
  /// --rotor-managed-comm=BYTES: a worker's flush sends at most BYTES of rows, largest change
  /// first (0: everything); needs flush_every and staleness >= 1 (docs/design/buffered.md).
  std::int64_t managed_bytes = 0;
  bool record_events = false; ///< tests: log every publish / resume with its clock
};
BufferedSettings& buffered_settings();
/// Session flag parsing: true when `name` is one of the buffered flags (then parsed or thrown).
bool parse_buffered_flag(const std::string& name, const std::string& value, bool has_value);
std::string buffered_flags_help();
/// The flag parser's environment pass (a flag given on the command line wins).
void buffered_from_environment();

/// What the last loop's merges did on this rank (tests, benchmarks, --rotor-verbose).
struct BufferedStats {
  std::int64_t rounds = 0;         ///< flush rounds merged
  std::int64_t dense_merges = 0;   ///< array merges by allreduce (or locally at np 1)
  std::int64_t sparse_merges = 0;  ///< array merges by the sharded (index, value) exchange
  std::int64_t pushed_entries = 0; ///< (index, value) pairs this rank pushed to owners
  std::int64_t bytes_sent = 0;     ///< bytes this rank sent for merges
  std::int64_t held_rows = 0;      ///< managed communication: rows a flush held back (summed)
  std::int64_t sparse_buffers = 0; ///< buffered arrays whose workers used sparse buffers
  std::int64_t buffer_bytes = 0;   ///< bytes of worker buffers (and flush state) at the loop end
  double worker_density = 0;       ///< largest fraction of rows one worker touched per merge
  double exchange_s = 0;           ///< seconds in merge communication
};
BufferedStats& buffered_stats();

/// One instrumented event (settings.record_events): `kind` 0 = worker published flush `clock`,
/// 1 = worker resumed computing after flush `clock`. `ns` is CLOCK_MONOTONIC (one clock for every
/// process on a machine).
struct BufferedEvent {
  std::int32_t worker;
  std::int32_t kind;
  std::int64_t clock;
  std::int64_t ns;
};
std::vector<BufferedEvent>& buffered_events();

/// How one loop execution flushes its buffered arrays (plan_buffered decides).
struct BufferedPlan {
  std::int64_t flush_every = 0; ///< 0: one merge at the loop's end
  int staleness = 0;
  bool across = false;            ///< merge across ranks
  std::int64_t managed_bytes = 0; ///< per worker flush; 0: send every change
  bool each_step = false;         ///< multi-step plans: merge after every step of the schedule
};
/// The settings applied to this loop: with --rotor-flush-every, one-step plans (independent,
/// data_parallel) whose workers all run at once flush every N records; multi-step plans
/// (rotation, one_d, wavefront) merge after each step of their schedule instead.
BufferedPlan plan_buffered(const codegen::LoopSpec& spec, const ExecutionInfo& info);

/// The custom merge registered for the array at `array` (null: the default `+=`).
const BufferedApplyEntry* find_buffered_apply(const void* array);

// -- merge helpers (Buffered.cpp; the merges reach other ranks through comm(), Comm.h) ----------

double buffered_now();
/// True when a loop's sparse-capable buffered array of `elements` should get sparse worker
/// buffers: the flag, else the rule of docs/design/buffered.md on the largest fraction of rows
/// one worker touched between merges in this loop's previous execution (`last_density` < 0: none
/// yet, dense).
bool buffered_sparse_buffers(std::int64_t elements, double last_density);
/// The worker density measured in the last execution of the loop at `file`:`line` (-1: none).
double& buffered_loop_density(const char* file, int line);
/// True when the array should merge by the sparse exchange this round: the flag, else
/// density * (8 + elem) < elem / 2 for arrays of at least 4096 elements (docs/design/buffered.md).
bool buffered_use_sparse(std::int64_t elements, std::size_t elem_bytes, double last_density);

// -- the flush coordinator (Buffered.cpp) ------------------------------------------------------

/// Drives the flushes of one loop execution: per-worker clocks, the SSP wait, the rounds that
/// merge every worker's n-th flush (in slot order, then across ranks), the final drain.
class FlushCoordinator final : public FlushTrigger {
public:
  /// `every` = 0: one merge at the loop's end (finish()).
  /// `managed_bytes` > 0: managed communication (changes held back up to `staleness` flushes,
  /// so workers wait for every round: the bound s is spent on the held changes).
  /// `each_step`: no flushes inside cells; every worker's changes merge when the engine finishes
  /// a step (step_finished, on the engine's thread, all ranks alike).
  FlushCoordinator(int slots, std::int64_t every, int staleness, bool across,
                   std::vector<BufferedMerge*> merges, std::int64_t managed_bytes = 0,
                   bool each_step = false);
  ~FlushCoordinator();
  FlushCoordinator(const FlushCoordinator&) = delete;
  FlushCoordinator& operator=(const FlushCoordinator&) = delete;

  bool flushing() const { return every_ > 0; }
  /// The worker ran all its records: publishes its last changes and leaves the clock table.
  void retire(int slot);
  /// The worker threw: nobody waits any more.
  void fail() override;
  /// Step mode: merges every slot's changes since the last step (slot order, then across ranks)
  /// and restarts each slot's view from the merged array.
  void step_finished();
  /// After the engine: retires slots that never ran, merges what is left (loop-end mode: the
  /// single merge), records the events.
  void finish();

private:
  void flush(int slot) override;
  void publish(int slot, bool retiring);
  void merge_loop();
  void log(int slot, int kind, std::int64_t clock);

  int slots_;
  int staleness_;
  int wait_; ///< a worker may run this many rounds ahead of the merged ones
  bool each_step_ = false;
  std::int64_t steps_ = 0; ///< step merges so far (each_step_)
  int ring_;
  bool across_;
  std::vector<BufferedMerge*> merges_;
  std::mutex mu_;                   ///< clocks, merged_, flags, events
  std::mutex table_mu_;             ///< the arrays' values (written by apply, read by refresh)
  std::condition_variable cv_;      ///< workers wait here for merged rounds
  std::condition_variable work_cv_; ///< the merger waits here for publishes
  std::vector<std::int64_t> clock_;
  std::vector<bool> retired_;
  std::int64_t merged_ = 0;
  bool done_ = false;
  bool failed_ = false;
  bool stop_ = false;
  std::exception_ptr error_;
  std::thread merger_;
  std::vector<BufferedEvent> events_;
};

} // namespace rotor::detail
