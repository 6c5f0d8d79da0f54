// The progress watchdog (issue 20, item 3): see rotor/runtime/detail/Watchdog.h.
#include "rotor/runtime/detail/Watchdog.h"

#include "Failure.h"
#include "rotor/distarray/detail/DatasetInternals.h"
#include "rotor/runtime/Session.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

namespace rotor::detail {
namespace {

constexpr int k_slots = 256;
WorkerProgress slots[k_slots];
std::atomic<std::uint64_t> main_ticks{0};
std::atomic<const char*> loop_file{nullptr};
std::atomic<int> loop_line{0};
std::atomic<const char*> wait_operation{nullptr};
std::atomic<int> wait_peer{-1};
std::atomic<int> pending_peer{-1};
/// The loop whose records a dataset's first serial access is gathering (Dataset::settle).
std::atomic<const char*> gather_file{nullptr};
std::atomic<int> gather_line{0};

double timeout_seconds = 600;
bool timeout_flag_seen = false;

/// The thread and what it waits on. Never destroyed: a program that calls exit() with a Session
/// alive (the examples' flag errors) must not meet a joinable std::thread or a destroyed
/// condition variable among the static destructors.
struct Watcher {
  std::thread thread;
  std::mutex mutex;
  std::condition_variable cv;
  bool stop = false;
};
Watcher& watcher_state() {
  static Watcher* w = new Watcher;
  return *w;
}

void bump() {
  main_ticks.fetch_add(1, std::memory_order_relaxed);
}

std::uint64_t total_ticks() {
  std::uint64_t t = main_ticks.load(std::memory_order_relaxed);
  for (const WorkerProgress& w : slots) {
    t += w.ticks.load(std::memory_order_relaxed);
  }
  return t;
}

double parse_timeout(const std::string& what, const std::string& value) {
  char* end = nullptr;
  const double s = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || !(s >= 0) || s > 1e9) {
    throw SettingsError("rotor: " + what + "='" + value +
                        "': expected a number of seconds >= 0 (0 turns the watchdog off)");
  }
  return s;
}

/// Why this rank is stalled, for the message.
std::string stall_reason(int rank, int ranks) {
  for (int s = 0; s < k_slots; ++s) {
    if (slots[s].busy.load(std::memory_order_relaxed)) {
      return "worker " + std::to_string(s) + " of rank " + std::to_string(rank) +
             " is inside the loop body and finished no record: a body that does not return?";
    }
  }
  const char* op = wait_operation.load(std::memory_order_relaxed);
  const int peer =
      op ? wait_peer.load(std::memory_order_relaxed) : pending_peer.load(std::memory_order_relaxed);
  if (peer >= 0) {
    return "waiting for rank " + std::to_string(peer) + (op ? std::string(" in ") + op : "") +
           ": rank " + std::to_string(peer) + " did not send (stopped or stuck?)";
  }
  if (op && ranks == 2) { // every collective is on MPI_COMM_WORLD (Comm.cpp): the other rank
    return std::string("waiting in ") + op + ": rank " + std::to_string(1 - rank) +
           " did not arrive (stopped or stuck?)";
  }
  if (op) {
    return std::string("waiting in ") + op + ": another rank did not arrive (stopped or stuck?)";
  }
  return "no record, message or collective completed on this rank";
}

void watch(int rank, int ranks, double timeout) {
  using clock = std::chrono::steady_clock;
  const auto period =
      std::chrono::milliseconds(static_cast<long>(std::clamp(timeout * 1000 / 4, 50.0, 1000.0)));
  std::uint64_t last = total_ticks();
  auto last_change = clock::now();
  Watcher& w = watcher_state();
  std::unique_lock<std::mutex> lock(w.mutex);
  while (!w.stop) {
    w.cv.wait_for(lock, period);
    if (w.stop) {
      break;
    }
    const std::uint64_t now_ticks = total_ticks();
    const auto now = clock::now();
    const bool active = loop_file.load(std::memory_order_relaxed) != nullptr ||
                        wait_operation.load(std::memory_order_relaxed) != nullptr;
    if (now_ticks != last || !active) {
      last = now_ticks;
      last_change = now;
      continue;
    }
    const double stalled = std::chrono::duration<double>(now - last_change).count();
    if (stalled < timeout) {
      continue;
    }
    const char* file = loop_file.load(std::memory_order_relaxed);
    std::string where = file ? "in loop " + std::string(file) + ":" +
                                   std::to_string(loop_line.load(std::memory_order_relaxed))
                             : std::string("outside parallel loops");
    if (const char* g = gather_file.load(std::memory_order_relaxed); g && !file) {
      where = "in the first serial access to a Dataset after the parallel loop at " +
              std::string(g) + ":" + std::to_string(gather_line.load(std::memory_order_relaxed)) +
              ", which brings the loop's records back from every rank: every rank must make "
              "that access (not only rank 0 under `if (rotor::is_root())`; touch the dataset on "
              "every rank first, e.g. `data.local_size();`)";
    }
    std::fprintf(stderr,
                 "[rank %d] rotor: no progress for %g s %s (%s); aborting all %d ranks "
                 "(--rotor-timeout=%g)\n",
                 rank, timeout, where.c_str(), stall_reason(rank, ranks).c_str(), ranks, timeout);
    abort_all_ranks(4);
  }
}

} // namespace

WorkerProgress& worker_progress(int slot) {
  return slots[static_cast<unsigned>(slot) % k_slots];
}

void progress_beat() {
  bump();
}

WatchdogLoopScope::WatchdogLoopScope(const char* file, int line)
    : prev_file_(loop_file.load(std::memory_order_relaxed)),
      prev_line_(loop_line.load(std::memory_order_relaxed)) {
  loop_line.store(line, std::memory_order_relaxed);
  loop_file.store(file ? file : "?", std::memory_order_relaxed);
  bump();
}

WatchdogLoopScope::~WatchdogLoopScope() {
  loop_file.store(prev_file_, std::memory_order_relaxed);
  loop_line.store(prev_line_, std::memory_order_relaxed);
  pending_peer.store(-1, std::memory_order_relaxed);
  bump();
}

WatchdogWait::WatchdogWait(const char* operation, int peer)
    : prev_operation_(wait_operation.load(std::memory_order_relaxed)),
      prev_peer_(wait_peer.load(std::memory_order_relaxed)) {
  wait_peer.store(peer, std::memory_order_relaxed);
  wait_operation.store(operation, std::memory_order_relaxed);
  bump();
}

WatchdogWait::~WatchdogWait() {
  wait_operation.store(prev_operation_, std::memory_order_relaxed);
  wait_peer.store(prev_peer_, std::memory_order_relaxed);
  bump();
}

void watchdog_pending_peer(int peer) {
  pending_peer.store(peer, std::memory_order_relaxed);
}

bool parse_watchdog_flag(const std::string& name, const std::string& value, bool has_value) {
  if (name != "--rotor-timeout") {
    return false;
  }
  if (!has_value || value.empty()) {
    throw SettingsError("rotor: --rotor-timeout needs a value (--rotor-timeout=SECONDS)");
  }
  timeout_seconds = parse_timeout(name, value);
  timeout_flag_seen = true;
  return true;
}

void watchdog_from_environment() {
  if (const char* v = std::getenv("ROTOR_TIMEOUT"); v && !timeout_flag_seen) {
    timeout_seconds = parse_timeout("ROTOR_TIMEOUT", v);
  }
}

std::string watchdog_flags_help() {
  return "--rotor-timeout=SECONDS";
}

double watchdog_timeout() {
  return timeout_seconds;
}

void start_watchdog(int rank, int ranks) {
  stop_watchdog();
  SerialGatherHooks hooks;
  hooks.begin = [](const char* loop_file, int loop_line) {
    gather_line.store(loop_line, std::memory_order_relaxed);
    gather_file.store(loop_file, std::memory_order_relaxed);
  };
  hooks.end = [] { gather_file.store(nullptr, std::memory_order_relaxed); };
  set_serial_gather_hooks(hooks);
  timeout_flag_seen = false; // the next parse_settings starts afresh
  if (!(timeout_seconds > 0)) {
    return;
  }
  Watcher& w = watcher_state();
  w.stop = false;
  w.thread = std::thread(watch, rank, ranks, timeout_seconds);
}

void stop_watchdog() {
  Watcher& w = watcher_state();
  if (!w.thread.joinable()) {
    return;
  }
  {
    std::lock_guard<std::mutex> lock(w.mutex);
    w.stop = true;
  }
  w.cv.notify_all();
  w.thread.join();
}

} // namespace rotor::detail
