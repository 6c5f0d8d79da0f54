#include "rotor/runtime/Session.h"

#include "BufferedFlush.h"
#include "CheckpointSettings.h"
#include "Failure.h"
#include "GpuSettings.h"
#include "Observability.h"
#include "OrderRecorder.h"
#include "PeerWatch.h"
#include "QuietRanks.h"
#include "ScheduleSettings.h"
#include "SessionState.h"
#include "rotor/distarray/MemoryLimit.h"
#include "rotor/distarray/detail/Collective.h"
#include "rotor/runtime/detail/Watchdog.h"

#include <oneapi/tbb/info.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <ostream>
#include <streambuf>
#include <string>

namespace rotor {
namespace {

Session* the_session = nullptr;
/// Set by the first Session: after a session has ended, loops fall back to one process instead
/// of starting the runtime again (MPI cannot be started twice).
std::atomic<bool> session_started{false};

/// distarray's Collective seam, implemented over the session's Comm.
class CommCollective final : public detail::Collective {
public:
  explicit CommCollective(detail::Comm& c) : c_(c) {}
  int rank() const override { return c_.rank(); }
  int size() const override { return c_.size(); }
  void barrier() override { c_.barrier(); }
  void allreduce_max(std::int64_t* v, std::size_t n) override { c_.allreduce_max(v, n); }
  void allreduce_sum(std::int64_t* v, std::size_t n) override { c_.allreduce_sum(v, n); }
  void allreduce_sum(double* v, std::size_t n) override { c_.allreduce_sum(v, n); }
  void broadcast(void* d, std::size_t b, int root) override { c_.broadcast(d, b, root); }
  std::vector<char> allgatherv(const void* d, std::size_t b,
                               std::vector<std::size_t>& offsets) override {
    return c_.allgatherv(d, b, offsets);
  }
  std::vector<std::vector<char>> alltoallv(const std::vector<std::vector<char>>& s) override {
    return c_.alltoallv(s);
  }
  [[noreturn]] void abort(const char* message) override { c_.abort(message); }

private:
  detail::Comm& c_;
};

std::unique_ptr<CommCollective> the_collective;

class NullBuffer : public std::streambuf {
protected:
  int overflow(int c) override { return c == EOF ? 0 : c; }
};
NullBuffer null_buffer;

bool launched_by_mpirun() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_RANK", "PMIX_RANK", "PMI_SIZE"}) {
    if (std::getenv(var)) {
      return true;
    }
  }
  return false;
}

/// A boolean flag's value: absent or 1/true is on, 0/false is off.
bool parse_switch(const std::string& flag, const std::string& value, bool has_value) {
  if (has_value && value != "1" && value != "0" && value != "true" && value != "false") {
    throw SettingsError("rotor: " + flag + "='" + value + "': expected 0, 1, true or false");
  }
  return !has_value || value == "1" || value == "true";
}

bool env_switch(const char* value) {
  return std::string(value) != "0" && std::string(value) != "false" && *value != '\0';
}

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : fallback;
}

int parse_threads(const std::string& flag, const std::string& value) {
  char* end = nullptr;
  long n = std::strtol(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || n < 1 || n > 4096) {
    throw SettingsError("rotor: " + flag + "='" + value +
                        "': expected a number of threads between 1 and 4096");
  }
  return static_cast<int>(n);
}

int default_threads(int ranks_on_node) {
  int cores = oneapi::tbb::info::default_concurrency();
  return std::max(1, cores / std::max(1, ranks_on_node));
}

void fill_state(Session::State& s) {
  s.threads = s.settings.threads;
  if (s.threads == 0) {
    int local = env_int("OMPI_COMM_WORLD_LOCAL_SIZE", s.comm->size());
    s.threads = default_threads(local);
  }
  using oneapi::tbb::global_control;
  if (static_cast<std::size_t>(s.threads) + 1 >
      global_control::active_value(global_control::max_allowed_parallelism)) {
    s.workers = std::make_unique<global_control>(global_control::max_allowed_parallelism,
                                                 static_cast<std::size_t>(s.threads) + 1);
  }
  // `threads` worker threads plus a slot reserved for the thread that runs the program: a step's
  // slot bodies run on the workers (run_slots_polling enqueues them while this thread drives
  // MPI) or on them and this thread (run_slots). With no reserved slot (threads, 0), after a
  // serial stretch of ~0.3-3 ms between two loops the workers had left the arena and this
  // thread ran the step's slots one after another: k-means' assignment loop at 2 threads ran
  // 6.1 ms instead of 3.1 ms per pass (docs/performance.md, "Worker threads between loops").
  s.arena = std::make_unique<oneapi::tbb::task_arena>(s.threads + 1, 1);
  s.null_out = std::make_unique<std::ostream>(&null_buffer);
}

} // namespace

namespace detail {

namespace {

/// The session's own flags given on the command line (the environment fills only the others).
struct CoreFlagsSeen {
  bool threads = false, verbose = false, record = false, replay = false, validate = false,
       all_output = false;
};

/// Parses one of the session's own flags into `s`; false when `name` is not one.
bool parse_core_flag(const std::string& name, const std::string& value, bool has_value,
                     SessionSettings& s, CoreFlagsSeen& seen) {
  const auto need_value = [&] {
    if (!has_value || value.empty()) {
      throw SettingsError("rotor: " + name + " needs a value (" + name + "=...)");
    }
  };
  if (name == "--rotor-threads") {
    need_value();
    s.threads = parse_threads(name, value);
    seen.threads = true;
  } else if (name == "--rotor-verbose") {
    s.verbose = parse_switch(name, value, has_value);
    seen.verbose = true;
  } else if (name == "--rotor-validate") {
    s.validate = parse_switch(name, value, has_value);
    seen.validate = true;
  } else if (name == "--rotor-record-order") {
    need_value();
    s.record_order = value;
    seen.record = true;
  } else if (name == "--rotor-replay-order") {
    need_value();
    s.replay_order = value;
    seen.replay = true;
  } else if (name == "--rotor-all-output") {
    if (has_value && value != "1" && value != "0" && value != "true" && value != "false") {
      throw SettingsError("rotor: --rotor-all-output='" + value +
                          "': expected 0, 1, true or false");
    }
    s.all_output = !has_value || value == "1" || value == "true";
    seen.all_output = true;
  } else {
    return false;
  }
  return true;
}

[[noreturn]] void unknown_flag(const std::string& arg) {
  throw SettingsError("rotor: unknown flag '" + arg +
                      "' (known: --rotor-threads=N, --rotor-verbose, "
                      "--rotor-record-order=FILE, --rotor-replay-order=FILE, --rotor-validate, "
                      "--rotor-checkpoint=DIR, --rotor-checkpoint-every=N, --rotor-resume, "
                      "--rotor-all-output, " +
                      observability_flags_help() + ", " + detail::buffered_flags_help() + ", " +
                      detail::watchdog_flags_help() + ", " + detail::schedule_flags_help() + ", " +
                      detail::gpu_flags_help() + ")");
}

/// ROTOR_THREADS, ROTOR_VERBOSE, ... for the session's flags not given on the command line.
void core_from_environment(SessionSettings& s, const CoreFlagsSeen& seen) {
  if (const char* v = std::getenv("ROTOR_THREADS"); v && !seen.threads) {
    s.threads = parse_threads("ROTOR_THREADS", v);
  }
  if (const char* v = std::getenv("ROTOR_VERBOSE"); v && !seen.verbose) {
    s.verbose = env_switch(v);
  }
  if (const char* v = std::getenv("ROTOR_VALIDATE"); v && !seen.validate) {
    s.validate = env_switch(v);
  }
  if (const char* v = std::getenv("ROTOR_RECORD_ORDER"); v && !seen.record) {
    s.record_order = v;
  }
  if (const char* v = std::getenv("ROTOR_REPLAY_ORDER"); v && !seen.replay) {
    s.replay_order = v;
  }
  if (const char* v = std::getenv("ROTOR_ALL_OUTPUT"); v && !seen.all_output) {
    s.all_output = std::string(v) != "0" && std::string(v) != "false" && *v != '\0';
  }
}

} // namespace

SessionSettings parse_settings(int& argc, char** argv, bool use_environment) {
  SessionSettings s;
  CoreFlagsSeen core_seen;
  ObservabilityFlagsSeen observability_seen;
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i] ? argv[i] : "";
    if (arg.rfind("--rotor-", 0) != 0) {
      argv[out++] = argv[i];
      continue;
    }
    std::string name = arg, value;
    bool has_value = false;
    if (auto eq = arg.find('='); eq != std::string::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      has_value = true;
    }
    if (!parse_core_flag(name, value, has_value, s, core_seen) &&
        !detail::parse_checkpoint_flag(name, value, has_value, s) &&
        !parse_observability_flag(name, value, has_value, s, observability_seen) &&
        !detail::parse_buffered_flag(name, value, has_value) &&
        !detail::parse_watchdog_flag(name, value, has_value) &&
        !detail::parse_schedule_flag(name, value, has_value) &&
        !detail::parse_gpu_flag(name, value, has_value)) {
      unknown_flag(arg);
    }
  }
  argc = out;
  if (out >= 0 && argv) {
    argv[out] = nullptr;
  }
  if (use_environment) {
    core_from_environment(s, core_seen);
    observability_from_environment(s, observability_seen);
    detail::buffered_from_environment();
    detail::watchdog_from_environment();
    detail::schedule_from_environment();
    detail::gpu_from_environment();
  }
  detail::finish_checkpoint_settings(s, use_environment);
  if (!s.record_order.empty() && !s.replay_order.empty()) {
    throw SettingsError("rotor: --rotor-record-order and --rotor-replay-order exclude each other");
  }
  return s;
}

Session::State& session_state() {
  if (the_session) {
    return *the_session->state_ptr();
  }
  if (!session_started.load()) {
    if (Session* s = start_implicit_session()) { // the first loop of a program without a Session
      return *s->state_ptr();
    }
  }
  static Session::State fallback = [] {
    Session::State s;
    s.comm = std::make_unique<Comm>(false);
    const char* v = std::getenv("ROTOR_THREADS");
    s.settings.threads = v ? parse_threads("ROTOR_THREADS", v) : 1;
    fill_state(s);
    return s;
  }();
  return fallback;
}

Comm& comm() {
  return *session_state().comm;
}

} // namespace detail

Session::Session(int& argc, char**& argv) : state_(std::make_unique<State>()) {
  if (Session* implicit = detail::implicit_session(); implicit && implicit == the_session) {
    // The program's own Session takes over the one rotor-cc or the first loop started.
    const int before = argc;
    detail::parse_settings(argc, argv, false); // too late to apply: only remove them from argv
    state_ = std::move(implicit->state_);
    if (argc != before && state_->comm->rank() == 0) {
      std::fprintf(stderr, "rotor: warning: the runtime started before this rotor::Session (at the "
                           "first loop, loader or rotor::is_root() call); its --rotor-* flags are "
                           "ignored: construct the Session before those\n");
    }
    the_session = this;
    return;
  }
  if (the_session) {
    throw std::logic_error("rotor::Session: a session already exists (one per process)");
  }
  session_started = true; // from here on no loop starts an implicit session
  state_->settings = detail::parse_settings(argc, argv, true);
  state_->comm = std::make_unique<detail::Comm>(launched_by_mpirun());
  if (state_->comm->uses_mpi()) {
    detail::install_failure_handlers(*state_->comm);
  }
  fill_state(*state_);
  detail::start_observability(state_->settings, *state_->comm, state_->threads,
                              argc > 0 && argv ? argv[0] : nullptr);
  the_collective = std::make_unique<CommCollective>(*state_->comm);
  detail::set_collective(the_collective.get());
  if (state_->comm->size() > 1) {
    // Allocations sized by the input are checked against one limit on every rank (MemoryLimit.h).
    std::int64_t neg = -static_cast<std::int64_t>(detail::rank_memory_limit());
    state_->comm->allreduce_max(&neg, 1);
    detail::set_agreed_memory_limit(static_cast<double>(-neg));
  }
  the_session = this;
  if (state_->comm->rank() != 0 && !state_->settings.all_output) {
    detail::quiet_this_rank(); // stdout discarded, files written by rank 0 once
  }
  detail::start_order_recording(state_->settings.record_order);
  detail::start_order_replay(state_->settings.replay_order);
  detail::start_order_validation(state_->settings.validate);
  detail::start_peer_watch(*state_->comm); // names lost ranks and hosts (PeerWatch.h)
  detail::start_watchdog(state_->comm->rank(), state_->comm->size());
}

Session::~Session() {
  if (!state_) {
    return; // an implicit session taken over by the program's own (see the constructor)
  }
  // Before anything collective: a lone rank must not hang.
  detail::abort_if_unwinding(*state_->comm);
  detail::checkpoint_at_session_end();
  detail::finish_observability(*state_->comm);
  detail::finish_order_recording();
  detail::start_order_validation(false);
  detail::stop_watchdog(); // after the last collectives, which it still watched
  detail::stop_peer_watch();
  the_session = nullptr;
  detail::set_collective(nullptr);
  detail::set_agreed_memory_limit(0);
  state_->arena.reset();
  state_->comm.reset();
  the_collective.reset();
}

Session& Session::instance() {
  if (!the_session) {
    throw std::logic_error("rotor::Session::instance(): no rotor::Session exists; create one at "
                           "the start of main: rotor::Session session(argc, argv);");
  }
  return *the_session;
}
Session* Session::current() {
  return the_session;
}

namespace codegen {
void serial_loop_as_written() {
  (void)detail::session_state();
}
} // namespace codegen

bool is_root() {
  return detail::session_state().comm->rank() == 0;
}

int Session::rank() const {
  return state_->comm->rank();
}
int Session::ranks() const {
  return state_->comm->size();
}
int Session::threads() const {
  return state_->threads;
}
bool Session::verbose() const {
  return state_->settings.verbose;
}
const SessionSettings& Session::settings() const {
  return state_->settings;
}
std::ostream& Session::out() const {
  return is_root() ? std::cout : *state_->null_out;
}

} // namespace rotor
