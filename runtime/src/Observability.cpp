#include "Observability.h"
#include "LoopWhere.h"

#include "Comm.h"
#include "MetricsFile.h"
#include "Progress.h"
#include "Schedule.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace rotor::detail {
namespace {

struct Observers {
  bool gather_metrics = false; ///< every rank: a metrics file is written (by rank 0)
  bool quiet = false;
  Comm* comm = nullptr;
  ProgressBar bar;
};
Observers& observers() {
  static Observers o;
  return o;
}

constexpr std::size_t k_progress_chunk = std::size_t{1} << 16; ///< records per progress count

double seconds(LoopProbe::Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

bool parse_bool(const std::string& flag, const std::string& value) {
  if (value == "1" || value == "true") {
    return true;
  }
  if (value == "0" || value == "false") {
    return false;
  }
  throw SettingsError("rotor: " + flag + "='" + value + "': expected 0, 1, true or false");
}

std::string base_name(const char* path) {
  if (!path || !*path) {
    return "rotor";
  }
  const char* slash = std::strrchr(path, '/');
  return slash ? slash + 1 : path;
}

} // namespace

bool parse_observability_flag(const std::string& name, const std::string& value, bool has_value,
                              SessionSettings& s, ObservabilityFlagsSeen& seen) {
  auto need_value = [&] {
    if (!has_value || value.empty()) {
      throw SettingsError("rotor: " + name + " needs a value (" + name + "=...)");
    }
  };
  if (name == "--rotor-metrics") {
    need_value();
    s.metrics = value;
    seen.metrics = true;
  } else if (name == "--rotor-trace") {
    need_value();
    s.trace = value;
    seen.trace = true;
  } else if (name == "--rotor-label") {
    need_value();
    s.label = value;
    seen.label = true;
  } else if (name == "--rotor-quiet") {
    s.quiet = !has_value || parse_bool(name, value);
    seen.quiet = true;
  } else {
    return false;
  }
  return true;
}

void observability_from_environment(SessionSettings& s, const ObservabilityFlagsSeen& seen) {
  auto env = [](const char* name) -> const char* {
    const char* v = std::getenv(name);
    return v && *v ? v : nullptr;
  };
  if (const char* v = env("ROTOR_METRICS"); v && !seen.metrics) {
    s.metrics = v;
  }
  if (const char* v = env("ROTOR_TRACE"); v && !seen.trace) {
    s.trace = v;
  }
  if (const char* v = env("ROTOR_LABEL"); v && !seen.label) {
    s.label = v;
  }
  if (const char* v = env("ROTOR_QUIET"); v && !seen.quiet) {
    s.quiet = parse_bool("ROTOR_QUIET", v);
  }
}

const char* observability_flags_help() {
  return "--rotor-metrics=FILE, --rotor-trace=FILE, --rotor-label=NAME, --rotor-quiet";
}

void start_observability(const SessionSettings& s, Comm& comm, int threads, const char* program) {
  Observers& o = observers();
  reset_session_clock();
  o.comm = &comm;
  o.quiet = s.quiet;
  o.gather_metrics = false;
  if (!s.metrics.empty()) {
    int ok = 1;
    std::string why;
    if (comm.rank() == 0) {
      const std::string label =
          s.label.empty() ? "np" + std::to_string(comm.size()) + "x" + std::to_string(threads)
                          : s.label;
      try {
        open_metrics(s.metrics, base_name(program), label, comm.size(), threads);
      } catch (const std::runtime_error& e) {
        ok = 0;
        why = e.what();
      }
    }
    comm.broadcast(&ok, sizeof ok, 0);
    if (!ok) {
      throw std::runtime_error(
          comm.rank() == 0 ? why
                           : "[rank " + std::to_string(comm.rank()) +
                                 "] rotor: rank 0 cannot write --rotor-metrics=" + s.metrics);
    }
    o.gather_metrics = true;
  }
  if (!s.trace.empty()) {
    start_trace(s.trace, threads, comm);
  }
  const char* term = std::getenv("TERM");
  o.bar.enable(comm.rank() == 0 && !s.quiet && isatty(fileno(stderr)) &&
               !(term && std::strcmp(term, "dumb") == 0));
}

void finish_observability(Comm& comm) {
  Observers& o = observers();
  loop_probe().finish();
  finish_trace(comm);
  close_metrics();
  o.gather_metrics = false;
  o.bar.enable(false);
  o.comm = nullptr;
}

bool quiet() {
  return observers().quiet;
}

// ---------------------------------------------------------------------------------------------

LoopProbe& loop_probe() {
  static LoopProbe probe;
  return probe;
}

void loop_finished() {
  loop_probe().finish();
}

void LoopProbe::begin(const codegen::LoopSpec& spec, const ExecutionInfo& info,
                      const SpaceAccess& space) {
  finish(); // an execution left open (a loop that threw)
  Observers& o = observers();
  on_ = o.gather_metrics || trace_on() || o.bar.enabled();
  if (!on_) {
    return;
  }
  loop_ = loop_where(spec);
  plan_ = kind_name(info.kind);
  redundant_ = info.redundant();
  execution_ = ++executions_[loop_];
  blocks_.clear();
  tiles_.clear();
  slots_.assign(static_cast<std::size_t>(std::max(1, info.slots)), Slot{});
  bytes_ = 0;
  open_ = true;
  executed_ = false;
  start_ = Clock::now();
  step_start_ = start_;
  const int ranks = o.comm ? o.comm->size() : 1;
  std::uint64_t local_records = space.local_count();
  if (space.is_index_space()) {
    const std::vector<std::int64_t> ext = space.extents();
    local_records = points_in_box(std::vector<std::int64_t>(ext.size(), 0), ext) /
                    static_cast<std::uint64_t>(redundant_ ? 1 : ranks);
  }
  o.bar.begin("rotor: " + loop_ + " " + plan_, local_records, redundant_ ? 1 : ranks);
}

void LoopProbe::set_local_records(std::uint64_t n) {
  if (on_) {
    observers().bar.set_total(n);
  }
}

bool LoopProbe::run_records(CellRunner& runner, int slot, std::size_t begin, std::size_t end) {
  return run_counted(slot, end - begin, [&](std::size_t p, std::size_t q) {
    return runner.run_records(slot, begin + p, begin + q);
  });
}

bool LoopProbe::run_list(CellRunner& runner, int slot, const std::size_t* indices,
                         std::size_t count) {
  return run_counted(slot, count, [&](std::size_t p, std::size_t q) {
    return runner.run_list(slot, indices + p, q - p);
  });
}

template <class RunChunk>
bool LoopProbe::run_counted(int slot, std::size_t count, const RunChunk& run_chunk) {
  ProgressBar& bar = observers().bar;
  if (!on_ || !bar.running()) {
    return run_chunk(0, count);
  }
  for (std::size_t p = 0; p < count;) {
    const std::size_t q = std::min(count, p + k_progress_chunk);
    const bool go = run_chunk(p, q);
    slots_[static_cast<std::size_t>(slot)].progress_counted += q - p;
    bar.add(q - p);
    if (!go) {
      return false;
    }
    p = q;
  }
  return true;
}

void LoopProbe::cell(int slot, int block, Clock::time_point start, Clock::time_point end,
                     std::uint64_t records) {
  if (!on_ || slot < 0 || static_cast<std::size_t>(slot) >= slots_.size()) {
    return;
  }
  Slot& s = slots_[static_cast<std::size_t>(slot)];
  s.compute_s += seconds(end - start);
  s.records += records;
  s.ran = true;
  s.cell_start = start;
  s.cell_end = end;
  if (records > s.progress_counted) {
    observers().bar.add(records - s.progress_counted);
  }
  s.progress_counted = 0;
  add_span(slot, SpanKind::compute, start, end, block);
}

void LoopProbe::step_begin() {
  if (!on_) {
    return;
  }
  step_start_ = Clock::now();
  for (Slot& s : slots_) {
    s.ran = false;
  }
}

void LoopProbe::step_end() {
  if (!on_) {
    return;
  }
  const Clock::time_point now = Clock::now();
  constexpr auto k_min_span = std::chrono::microseconds(1);
  for (std::size_t t = 0; t < slots_.size(); ++t) {
    Slot& s = slots_[t];
    const int slot = static_cast<int>(t);
    if (!s.ran) {
      s.wait_s += seconds(now - step_start_);
      add_span(slot, SpanKind::wait, step_start_, now);
      continue;
    }
    s.wait_s += seconds(s.cell_start - step_start_) + seconds(now - s.cell_end);
    if (s.cell_start - step_start_ >= k_min_span) {
      add_span(slot, SpanKind::wait, step_start_, s.cell_start);
    }
    if (now - s.cell_end >= k_min_span) {
      add_span(slot, SpanKind::wait, s.cell_end, now);
    }
  }
}

void LoopProbe::rank_phase(SpanKind kind, Clock::time_point start, Clock::time_point end,
                           std::int64_t bytes) {
  if (!on_) {
    return;
  }
  for (std::size_t t = 0; t < slots_.size(); ++t) {
    (kind == SpanKind::layout ? slots_[t].layout_s : slots_[t].comm_s) += seconds(end - start);
    // the driver thread communicates; the rank's other workers wait for it
    add_span(static_cast<int>(t), t == 0 ? kind : SpanKind::wait, start, end, t == 0 ? bytes : -1);
  }
}

void LoopProbe::end_execute() {
  if (on_) {
    execute_end_ = Clock::now();
    executed_ = true;
  }
}

void LoopProbe::finish() {
  if (!open_) {
    return;
  }
  open_ = false;
  Observers& o = observers();
  const Clock::time_point end = Clock::now();
  if (executed_) {
    rank_phase(SpanKind::merge, execute_end_, end); // reductions and buffered arrays
  }
  on_ = false;
  o.bar.end();
  if (!o.gather_metrics || !o.comm) {
    return;
  }
  // per rank: [seconds, bytes, slots, then per slot: compute, comm, wait, layout, records]
  std::vector<double> mine = {seconds(end - start_), static_cast<double>(bytes_),
                              static_cast<double>(slots_.size())};
  for (const Slot& s : slots_) {
    mine.insert(mine.end(),
                {s.compute_s, s.comm_s, s.wait_s, s.layout_s, static_cast<double>(s.records)});
  }
  std::vector<std::size_t> offsets;
  std::vector<char> all = o.comm->allgatherv(mine.data(), mine.size() * sizeof(double), offsets);
  if (o.comm->rank() != 0) {
    return;
  }
  LoopMetrics m;
  m.loop = loop_;
  m.plan = plan_;
  m.execution = execution_;
  m.redundant = redundant_;
  m.blocks = blocks_;
  m.tiles = tiles_;
  for (int r = 0; r < o.comm->size(); ++r) {
    std::vector<double> v((offsets[r + 1] - offsets[r]) / sizeof(double));
    std::memcpy(v.data(), all.data() + offsets[r], v.size() * sizeof(double));
    if (v.size() < 3) {
      continue;
    }
    m.seconds = std::max(m.seconds, v[0]);
    m.bytes_moved += static_cast<std::uint64_t>(v[1]);
    const int slots = static_cast<int>(v[2]);
    constexpr int k_per_slot = 5;
    for (int t = 0; t < slots && 3 + k_per_slot * (t + 1) <= static_cast<int>(v.size()); ++t) {
      const double* x = v.data() + 3 + k_per_slot * t;
      WorkerTimes w;
      w.rank = r;
      w.thread = t;
      w.compute_s = x[0];
      w.comm_s = x[1];
      w.wait_s = x[2];
      w.layout_s = x[3];
      w.records = static_cast<std::uint64_t>(x[4]);
      if (!redundant_ || r == 0) {
        m.records += w.records;
      }
      m.workers.push_back(w);
    }
  }
  m.t = session_seconds();
  write_loop_metrics(m);
}

} // namespace rotor::detail
