#pragma once
/// \file
/// The progress watchdog (issue 20, item 3). Not for user code.
///
/// Every rank counts its progress: records its workers finished (one relaxed store per record on
/// the worker's own cache line), messages and collectives it completed, loops it entered and
/// left. A sleeping thread per rank (`--rotor-timeout=SECONDS`, `ROTOR_TIMEOUT`; default 600,
/// 0 disables) looks at the count about once a second; when it has not changed for SECONDS while
/// the rank is inside a parallel loop or waiting for other ranks (a collective, a message), it
/// prints one line
///
///   [rank R] rotor: no progress for S s in loop FILE:LINE (WHY); aborting all N ranks
///
/// where WHY names a body that has not returned on this rank, or the rank it waits for (a
/// stopped or stuck peer cannot print; the rank waiting for it does), and ends the job
/// (MPI_Abort).

#include <atomic>
#include <cstdint>
#include <string>

namespace rotor::detail {

/// One worker slot's progress, on its own cache line.
struct alignas(64) WorkerProgress {
  std::atomic<std::uint64_t> ticks{0};
  std::atomic<int> busy{0}; ///< inside a body loop
};

/// The counters of worker slot `slot` (slots beyond the table share entries: it only has to move).
WorkerProgress& worker_progress(int slot);

/// Marks a worker slot as running loop bodies for its lifetime; tick() after every record.
class WorkerBeat {
public:
  explicit WorkerBeat(int slot)
      : p_(worker_progress(slot)), ticks_(p_.ticks.load(std::memory_order_relaxed)) {
    p_.busy.store(1, std::memory_order_relaxed);
    tick();
  }
  ~WorkerBeat() {
    p_.busy.store(0, std::memory_order_relaxed);
    tick();
  }
  WorkerBeat(const WorkerBeat&) = delete;
  WorkerBeat& operator=(const WorkerBeat&) = delete;
  /// Only this worker writes its slot: one relaxed store of its own count, no read-modify-write.
  void tick() { p_.ticks.store(++ticks_, std::memory_order_relaxed); }

private:
  WorkerProgress& p_;
  std::uint64_t ticks_; ///< p_.ticks as this worker last stored it
};

/// Progress of the thread that drives communication (a message or collective completed).
void progress_beat();

/// The parallel loop at FILE:LINE runs while this lives (run_erased_loop).
class WatchdogLoopScope {
public:
  WatchdogLoopScope(const char* file, int line);
  ~WatchdogLoopScope();
  WatchdogLoopScope(const WatchdogLoopScope&) = delete;
  WatchdogLoopScope& operator=(const WatchdogLoopScope&) = delete;

private:
  const char* prev_file_;
  int prev_line_;
};

/// A blocking wait for other ranks (`operation` a string literal, e.g. "MPI_Allreduce"; `peer` the
/// rank waited for, or -1 for a collective); progress when it ends.
class WatchdogWait {
public:
  WatchdogWait(const char* operation, int peer);
  ~WatchdogWait();
  WatchdogWait(const WatchdogWait&) = delete;
  WatchdogWait& operator=(const WatchdogWait&) = delete;

private:
  const char* prev_operation_;
  int prev_peer_;
};

/// Non-blocking receives/sends still pending from/to `peer` (-1: none pending any more). The
/// engine polls them while its workers compute; a stall then names that rank.
void watchdog_pending_peer(int peer);

/// --rotor-timeout=SECONDS (true when `name` is that flag); ROTOR_TIMEOUT; help text.
bool parse_watchdog_flag(const std::string& name, const std::string& value, bool has_value);
void watchdog_from_environment();
std::string watchdog_flags_help();
/// The timeout in seconds (0: off).
double watchdog_timeout();

/// Starts / stops the watchdog thread of this rank (Session). No thread when the timeout is 0.
void start_watchdog(int rank, int ranks);
void stop_watchdog();

} // namespace rotor::detail
