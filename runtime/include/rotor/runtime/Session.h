#pragma once
/// \file
/// rotor::Session: the process's Rotor runtime (MPI ranks, TBB threads, settings).
///
/// \code
///   int main(int argc, char** argv) {
///     rotor::Session session(argc, argv);   // strips --rotor-* flags from argv
///     ...
///   }
/// \endcode
///
/// Launched by mpirun (Open MPI, or any launcher setting PMI_RANK / PMIX_RANK) it initialises
/// MPI with MPI_Init_thread(MPI_THREAD_SERIALIZED); otherwise it is a single process. Each rank
/// runs its workers in one TBB arena of `threads()` threads.
///
/// Settings come from `--rotor-NAME=VALUE` flags (removed from argv) or `ROTOR_NAME`
/// environment variables (flags win):
///   --rotor-threads=N          worker threads per rank (default: cores / ranks on the node)
///   --rotor-verbose            one line per parallel loop: ranks, threads, plan, time
///   --rotor-record-order=FILE  write the order in which records were applied (rank 0 writes)
///   --rotor-replay-order=FILE  a serial run: Dataset::begin() follows the recorded order
///   --rotor-validate           compare every parallel loop execution with a serial replay of
///                              its order on a snapshot; stop naming the first difference
///   --rotor-checkpoint=DIR     write DIR/rotor-checkpoint.h5 every N loop executions
///   --rotor-checkpoint-every=N (default 1)
///   --rotor-resume             skip the loop executions DIR's checkpoint holds, restore its state
///   --rotor-metrics=FILE       JSON lines per loop execution and rotor::report_metric call
///   --rotor-trace=FILE         Chrome/Perfetto trace of every worker (written at the end)
///   --rotor-label=NAME         the run's name in the metrics file (default npRxT)
///   --rotor-quiet              no progress bar (drawn on a terminal), notes or verbose lines
///   --rotor-all-output         keep every rank's stdout and files (default: rank 0's)
/// An unknown `--rotor-` flag or a bad value throws rotor::SettingsError naming it.
///
/// Non-root ranks' stdout is discarded so a serial program prints once (unless
/// --rotor-all-output); stderr stays on every rank and Rotor's own messages go there with a
/// `[rank R]` prefix. One Session per process; it must outlive every parallel loop.
///
/// A Session is optional: rotor-cc starts one at the top of `main` when the file it rewrites
/// defines `main` and constructs no Session (rotor::codegen::MainSession), and otherwise the
/// first parallel loop, loader or rotor::is_root() call starts one from the ROTOR_* variables,
/// ended at exit. A Session the program constructs while such an implicit one runs takes it over
/// (no second MPI start) and ends it when destroyed.

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <stdexcept>
#include <string>

namespace rotor {

/// A bad `--rotor-*` flag or `ROTOR_*` variable.
class SettingsError : public std::invalid_argument {
public:
  using std::invalid_argument::invalid_argument;
};

struct SessionSettings {
  int threads = 0; ///< 0: choose (cores / ranks on this node)
  bool verbose = false;
  std::string record_order; ///< empty: off
  std::string replay_order; ///< empty: off
  bool validate = false;    ///< --rotor-validate: check each loop execution (docs/user/running.md)
  std::string checkpoint_dir; ///< --rotor-checkpoint=DIR; empty: off
  int checkpoint_every = 1;   ///< --rotor-checkpoint-every=N loop executions
  bool resume = false;        ///< --rotor-resume: continue from DIR's checkpoint
  std::string metrics;        ///< --rotor-metrics=FILE: JSON lines of loops and metrics (rank 0)
  std::string trace;          ///< --rotor-trace=FILE: Chrome trace-event JSON of every worker
  std::string label;          ///< --rotor-label=NAME: the run's name in the metrics file
  bool quiet = false;         ///< --rotor-quiet: no progress bar, notes or verbose lines
  bool all_output = false;    ///< --rotor-all-output: keep non-root ranks' stdout, file writes
};

class Session {
public:
  Session(int& argc, char**& argv);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  /// The process's session. Throws std::logic_error when none exists.
  static Session& instance();
  /// The process's session, or nullptr.
  static Session* current();

  int rank() const;    ///< this process's MPI rank (0 without MPI)
  int ranks() const;   ///< number of MPI ranks (1 without MPI)
  int threads() const; ///< worker threads per rank
  int workers() const { return ranks() * threads(); }
  bool is_root() const { return rank() == 0; }
  bool verbose() const;
  const SessionSettings& settings() const;
  /// std::cout on rank 0, a stream that discards everything on other ranks.
  std::ostream& out() const;

  struct State;
  State* state_ptr() const { return state_.get(); } ///< the runtime's internals

private:
  std::unique_ptr<State> state_;
};

/// True on rank 0 (always without MPI): write your own output files from rank 0 only,
/// `if (rotor::is_root()) { std::ofstream out(...); ... }`, since serial code runs on every rank.
/// Starts the runtime when no session runs yet (like the first parallel loop).
bool is_root();

/// Loop executions so far that --rotor-resume skipped because the checkpoint already held them
/// (their state was restored, not computed); 0 without --rotor-resume. A program can leave such
/// epochs out of a throughput figure: compare the count before and after the epoch's loops.
std::int64_t restored_loop_executions();

namespace detail {
/// Parses and removes `--rotor-*` flags from argv (argc updated), then fills unset values from
/// ROTOR_* environment variables when `use_environment`. Throws SettingsError.
SessionSettings parse_settings(int& argc, char** argv, bool use_environment);
} // namespace detail

} // namespace rotor
