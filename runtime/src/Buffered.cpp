// Buffered arrays: flags, the custom-apply registry, the exchange wrappers over Comm and the flush
// coordinator (clocks, SSP wait, merge rounds). docs/design/buffered.md describes the protocol.

#include "BufferedFlush.h"
#include "BufferedMerge.h"
#include "LoopWhere.h"

#include "Schedule.h"
#include "SessionState.h"
#include "rotor/runtime/Session.h"

#include <oneapi/tbb/global_control.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>

namespace rotor::detail {

namespace {

struct FlagsSeen {
  bool every = false, staleness = false, exchange = false, buffer = false, managed = false;
};
FlagsSeen& flags_seen() {
  static FlagsSeen seen;
  return seen;
}

std::int64_t parse_count(const std::string& what, const std::string& value, std::int64_t max) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || errno != 0 || v < 0 || v > max) {
    throw SettingsError("rotor: " + what + "='" + value + "': expected a whole number from 0 to " +
                        std::to_string(max));
  }
  return v;
}

BufferedSettings::Exchange parse_exchange(const std::string& what, const std::string& value) {
  if (value == "auto") {
    return BufferedSettings::Exchange::automatic;
  }
  if (value == "dense") {
    return BufferedSettings::Exchange::dense;
  }
  if (value == "sparse") {
    return BufferedSettings::Exchange::sparse;
  }
  throw SettingsError("rotor: " + what + "='" + value + "': expected auto, dense or sparse");
}

std::map<const void*, BufferedApplyEntry>& apply_registry() {
  static std::map<const void*, BufferedApplyEntry> registry;
  return registry;
}

} // namespace

BufferedSettings& buffered_settings() {
  static BufferedSettings settings;
  return settings;
}

bool parse_buffered_flag(const std::string& name, const std::string& value, bool has_value) {
  BufferedSettings& s = buffered_settings();
  auto need = [&] {
    if (!has_value || value.empty()) {
      throw SettingsError("rotor: " + name + " needs a value (" + name + "=...)");
    }
  };
  if (name == "--rotor-flush-every") {
    need();
    s.flush_every = parse_count(name, value, std::numeric_limits<std::int64_t>::max() / 2);
    flags_seen().every = true;
  } else if (name == "--rotor-staleness") {
    need();
    s.staleness = static_cast<int>(parse_count(name, value, 1000000));
    flags_seen().staleness = true;
  } else if (name == "--rotor-buffered-exchange") {
    need();
    s.exchange = parse_exchange(name, value);
    flags_seen().exchange = true;
  } else if (name == "--rotor-managed-comm") {
    need();
    s.managed_bytes = parse_count(name, value, std::numeric_limits<std::int64_t>::max() / 2);
    flags_seen().managed = true;
  } else if (name == "--rotor-worker-buffer") {
    need();
    s.worker_buffer = parse_exchange(name, value);
    flags_seen().buffer = true;
  } else {
    return false;
  }
  return true;
}

std::string buffered_flags_help() {
  return "--rotor-flush-every=N, --rotor-staleness=S, --rotor-buffered-exchange=auto|dense|sparse, "
         "--rotor-worker-buffer=auto|dense|sparse, --rotor-managed-comm=BYTES";
}

void buffered_from_environment() {
  BufferedSettings& s = buffered_settings();
  if (const char* v = std::getenv("ROTOR_FLUSH_EVERY"); v && !flags_seen().every) {
    s.flush_every =
        parse_count("ROTOR_FLUSH_EVERY", v, std::numeric_limits<std::int64_t>::max() / 2);
  }
  if (const char* v = std::getenv("ROTOR_STALENESS"); v && !flags_seen().staleness) {
    s.staleness = static_cast<int>(parse_count("ROTOR_STALENESS", v, 1000000));
  }
  if (const char* v = std::getenv("ROTOR_BUFFERED_EXCHANGE"); v && !flags_seen().exchange) {
    s.exchange = parse_exchange("ROTOR_BUFFERED_EXCHANGE", v);
  }
  if (const char* v = std::getenv("ROTOR_MANAGED_COMM"); v && !flags_seen().managed) {
    s.managed_bytes =
        parse_count("ROTOR_MANAGED_COMM", v, std::numeric_limits<std::int64_t>::max() / 2);
  }
  if (const char* v = std::getenv("ROTOR_WORKER_BUFFER"); v && !flags_seen().buffer) {
    s.worker_buffer = parse_exchange("ROTOR_WORKER_BUFFER", v);
  }
}

BufferedStats& buffered_stats() {
  static BufferedStats stats;
  return stats;
}

std::vector<BufferedEvent>& buffered_events() {
  static std::vector<BufferedEvent> events;
  return events;
}

void register_buffered_apply(const void* array, BufferedApplyEntry entry) {
  apply_registry()[array] = std::move(entry);
}
void unregister_buffered_apply(const void* array) {
  apply_registry().erase(array);
}
const BufferedApplyEntry* find_buffered_apply(const void* array) {
  auto it = apply_registry().find(array);
  return it == apply_registry().end() ? nullptr : &it->second;
}

double buffered_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

namespace {
/// A choice the user forced (dense: false, sparse: true), or nothing for automatic.
std::optional<bool> forced_sparse(BufferedSettings::Exchange choice) {
  switch (choice) {
  case BufferedSettings::Exchange::dense:
    return false;
  case BufferedSettings::Exchange::sparse:
    return true;
  case BufferedSettings::Exchange::automatic:
    break;
  }
  return std::nullopt;
}
} // namespace

bool buffered_sparse_buffers(std::int64_t elements, double last_density) {
  if (const auto forced = forced_sparse(buffered_settings().worker_buffer)) {
    return *forced;
  }
  // docs/design/buffered.md, "Worker buffers": below these the dense copy is as small or as fast.
  constexpr std::int64_t k_min_elements = 1 << 16;
  constexpr double k_max_density = 1.0 / 16;
  return elements >= k_min_elements && last_density >= 0 && last_density < k_max_density;
}

double& buffered_loop_density(const char* file, int line) {
  static std::map<std::pair<std::string, int>, double> densities;
  return densities.try_emplace({file, line}, -1.0).first->second;
}

bool buffered_use_sparse(std::int64_t elements, std::size_t elem_bytes, double last_density) {
  if (const auto forced = forced_sparse(buffered_settings().exchange)) {
    return *forced;
  }
  if (elements < 4096) {
    return false; // small arrays: one allreduce costs its latency either way
  }
  if (last_density < 0) {
    return false; // first merge of this loop execution: measure the density densely
  }
  const double eb = static_cast<double>(elem_bytes);
  return last_density * (8.0 + eb) < 0.5 * eb;
}

BufferedPlan plan_buffered(const codegen::LoopSpec& spec, const ExecutionInfo& info) {
  const BufferedSettings& s = buffered_settings();
  BufferedPlan plan;
  plan.across = !info.redundant() && comm().size() > 1;
  if (s.flush_every <= 0) {
    return plan;
  }
  const bool one_step =
      spec.kind == codegen::Kind::data_parallel || spec.kind == codegen::Kind::independent;
  const bool buffered = std::any_of(spec.arrays.begin(), spec.arrays.end(), [](const auto& a) {
    return a.role == codegen::Role::buffered;
  });
  if (!buffered || info.placement != Placement::distributed) {
    return plan;
  }
  const auto parallelism = static_cast<int>(oneapi::tbb::global_control::active_value(
      oneapi::tbb::global_control::max_allowed_parallelism));
  std::string where = loop_where(spec);
  if (!one_step) {
    // Workers of a multi-step plan do not all run at once, and every rank ends each step anyway:
    // merge there (docs/design/buffered.md, "Multi-step plans").
    static bool told = false;
    if (!told && comm().rank() == 0) {
      std::fprintf(stderr,
                   "rotor: %s: --rotor-flush-every on a %s plan: its buffered arrays merge after "
                   "each step of the schedule\n",
                   where.c_str(), kind_name(spec.kind));
    }
    told = true;
    plan.each_step = true;
    return plan;
  }
  if (info.slots > parallelism) {
    static bool told = false;
    if (!told && comm().rank() == 0) {
      std::fprintf(stderr,
                   "rotor: %s: %d threads but at most %d run at once: flushes inside the loop "
                   "need every worker running; merging at the loop's end\n",
                   where.c_str(), info.slots, parallelism);
    }
    told = true;
    return plan;
  }
  plan.flush_every = s.flush_every;
  plan.staleness = s.staleness;
  plan.managed_bytes = s.managed_bytes;
  if (s.managed_bytes > 0 && s.staleness == 0) {
    static bool told = false;
    if (!told && comm().rank() == 0) {
      std::fprintf(stderr,
                   "rotor: %s: --rotor-managed-comm holds changes back for at most "
                   "--rotor-staleness flushes; with 0 every flush sends everything\n",
                   where.c_str());
    }
    told = true;
  }
  return plan;
}

// -- FlushCoordinator ----------------------------------------------------------------------------

FlushCoordinator::FlushCoordinator(int slots, std::int64_t every, int staleness, bool across,
                                   std::vector<BufferedMerge*> merges, std::int64_t managed_bytes,
                                   bool each_step)
    : FlushTrigger(slots, every), slots_(slots), staleness_(staleness),
      wait_(managed_bytes > 0 ? 0 : staleness), each_step_(each_step), ring_(staleness + 1),
      across_(across), merges_(std::move(merges)), clock_(static_cast<std::size_t>(slots), 0),
      retired_(static_cast<std::size_t>(slots), false) {
  buffered_stats() = BufferedStats{};
  for (BufferedMerge* m : merges_) {
    m->set_workers(slots_ * (across_ ? comm().size() : 1));
  }
  if (each_step_) {
    for (BufferedMerge* m : merges_) {
      m->set_managed(0, 0);
      m->start_flushing(1);
    }
  }
  if (flushing()) {
    for (BufferedMerge* m : merges_) {
      m->set_managed(managed_bytes, staleness_);
      m->start_flushing(ring_);
    }
    merger_ = std::thread([this] { merge_loop(); });
  }
}

FlushCoordinator::~FlushCoordinator() {
  if (merger_.joinable()) {
    {
      std::lock_guard<std::mutex> lk(mu_);
      stop_ = true;
    }
    work_cv_.notify_all();
    merger_.join();
  }
}

void FlushCoordinator::log(int slot, int kind, std::int64_t clock) {
  if (!buffered_settings().record_events) {
    return;
  }
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  events_.push_back({comm().rank() * slots_ + slot, kind, clock,
                     static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec});
}

void FlushCoordinator::publish(int slot, bool retiring) {
  const auto s = static_cast<std::size_t>(slot);
  const std::int64_t c = clock_[s] + 1; // only this worker writes its clock
  for (BufferedMerge* m : merges_) {
    m->take(slot, static_cast<int>(c % ring_), c, retiring);
  }
  {
    std::lock_guard<std::mutex> lk(mu_);
    log(slot, 0, c);
    clock_[s] = c;
    if (retiring) {
      retired_[s] = true;
    }
  }
  work_cv_.notify_one();
}

void FlushCoordinator::flush(int slot) {
  const auto s = static_cast<std::size_t>(slot);
  since_[s].value = 0;
  publish(slot, false);
  const std::int64_t c = clock_[s];
  {
    std::unique_lock<std::mutex> lk(mu_);
    cv_.wait(lk, [&] { return failed_ || merged_ >= c - wait_; });
    log(slot, 1, c);
  }
  // The array now holds rounds 1..merged_; add this worker's own later flushes.
  std::lock_guard<std::mutex> table(table_mu_);
  std::int64_t merged = 0;
  {
    std::lock_guard<std::mutex> lk(mu_);
    merged = merged_;
  }
  std::vector<int> rings;
  for (std::int64_t r = merged + 1; r <= c; ++r) {
    rings.push_back(static_cast<int>(r % ring_));
  }
  for (BufferedMerge* m : merges_) {
    m->refresh(slot, rings);
  }
}

void FlushCoordinator::retire(int slot) {
  if (!flushing()) {
    return;
  }
  publish(slot, true);
  // Wait for the last round: the engine calls MPI once every worker is back, and only one
  // thread may call it at a time.
  std::unique_lock<std::mutex> lk(mu_);
  cv_.wait(lk, [&] { return failed_ || done_; });
}

void FlushCoordinator::fail() {
  std::lock_guard<std::mutex> lk(mu_);
  failed_ = true;
  cv_.notify_all();
  work_cv_.notify_all();
}

void FlushCoordinator::merge_loop() {
  // The rank's merger thread: merges round r once every local worker published its r-th flush
  // (or retired), in slot order, then across ranks (the only MPI caller while the loop runs), so
  // workers under the staleness bound keep computing while a round is in flight.
  std::vector<int> rings(static_cast<std::size_t>(slots_));
  for (;;) {
    std::int64_t r = 0;
    std::int64_t counts[2] = {0, 0}; // workers still running, flushes beyond round r
    {
      std::unique_lock<std::mutex> lk(mu_);
      auto ready = [&] {
        for (int s = 0; s < slots_; ++s) {
          const auto i = static_cast<std::size_t>(s);
          if (clock_[i] < merged_ + 1 && !retired_[i]) {
            return false;
          }
        }
        return true;
      };
      work_cv_.wait(lk, [&] { return failed_ || done_ || stop_ || ready(); });
      if (failed_ || done_ || stop_) {
        return;
      }
      r = merged_ + 1;
      for (int s = 0; s < slots_; ++s) {
        const auto i = static_cast<std::size_t>(s);
        rings[i] = clock_[i] >= r ? static_cast<int>(r % ring_) : -1;
        counts[0] += retired_[i] ? 0 : 1;
        counts[1] += clock_[i] > r ? clock_[i] - r : 0;
      }
    }
    try {
      for (BufferedMerge* m : merges_) {
        m->prepare_round(rings, across_);
      }
      if (across_) {
        comm().allreduce_sum(counts, 2);
      }
      // merged_ moves with the array, under the table lock: a worker refreshing its view reads
      // both together, or it would add its own flush r on top of an array that holds round r
      std::lock_guard<std::mutex> table(table_mu_);
      for (BufferedMerge* m : merges_) {
        m->apply();
      }
      std::lock_guard<std::mutex> lk(mu_);
      merged_ = r;
      ++buffered_stats().rounds;
      done_ = counts[0] == 0 && counts[1] == 0;
    } catch (...) {
      std::lock_guard<std::mutex> lk(mu_);
      error_ = std::current_exception();
      failed_ = true;
      cv_.notify_all();
      return;
    }
    cv_.notify_all();
  }
}

void FlushCoordinator::step_finished() {
  if (!each_step_) {
    return;
  }
  ++steps_;
  for (int s = 0; s < slots_; ++s) {
    for (BufferedMerge* m : merges_) {
      m->take(s, 0, steps_, true);
    }
  }
  const std::vector<int> rings(static_cast<std::size_t>(slots_), 0);
  for (BufferedMerge* m : merges_) {
    m->prepare_round(rings, across_);
  }
  for (BufferedMerge* m : merges_) {
    m->apply();
  }
  for (int s = 0; s < slots_; ++s) {
    for (BufferedMerge* m : merges_) {
      m->refresh(s, {});
    }
  }
  ++buffered_stats().rounds;
}

void FlushCoordinator::finish() {
  if (each_step_) {
    return; // the last step's merge took every change
  }
  if (!flushing()) {
    for (BufferedMerge* m : merges_) {
      m->prepare_loop_end(across_);
    }
    for (BufferedMerge* m : merges_) {
      m->apply();
    }
    ++buffered_stats().rounds;
    return;
  }
  for (int s = 0; s < slots_; ++s) {
    bool need = false;
    {
      std::lock_guard<std::mutex> lk(mu_);
      need = !retired_[static_cast<std::size_t>(s)];
    }
    if (need) {
      publish(s, true); // a worker the engine gave no records
    }
  }
  merger_.join();
  if (error_) {
    std::rethrow_exception(error_);
  }
  if (!done_) {
    throw std::logic_error("rotor: internal: buffered flush rounds did not drain");
  }
  if (buffered_settings().record_events) {
    buffered_events().insert(buffered_events().end(), events_.begin(), events_.end());
  }
}

} // namespace rotor::detail
