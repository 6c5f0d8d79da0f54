// The engine's entry points: plan_execution decides which executor runs a loop and where;
// execute runs it (Executor.h) between the probes that observe it.

#include "rotor/runtime/detail/Engine.h"

#include "Comm.h"
#include "Executor.h"
#include "LoopWhere.h"
#include "Observability.h"
#include "OrderLog.h"
#include "Schedule.h"
#include "SessionState.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace rotor::detail {

using codegen::Kind;

const char* placement_name(Placement placement) {
  switch (placement) {
  case Placement::every_rank:
    return "serial";
  case Placement::rank_threads:
    return "threads";
  case Placement::distributed:
    return "distributed";
  }
  return "?";
}

LoopStats& last_stats() {
  static LoopStats stats;
  return stats;
}

int session_threads() {
  return session_state().threads;
}
void abort_if_distributed(const char* message) {
  if (comm().size() > 1) {
    comm().abort(message);
  }
}
void note(const std::string& message) {
  if (comm().rank() == 0 && !quiet()) {
    std::fprintf(stderr, "%s\n", message.c_str());
  }
}

namespace {

/// The plan that can run: serial when two bound arrays alias or a stepped plan has no fields.
Kind runnable_kind(const codegen::LoopSpec& spec, SpaceAccess& space, bool arrays_alias) {
  const bool needs_fields = spec.kind == Kind::one_d || spec.kind == Kind::rotation ||
                            spec.kind == Kind::wavefront || spec.kind == Kind::unimodular;
  if (arrays_alias) {
    note("rotor: " + loop_where(spec) +
         ": two bound arrays share memory (or rows of a pointer table are null or shared); "
         "running serially");
    return Kind::serial;
  }
  if (needs_fields && partition_fields(spec, space).empty()) {
    note("rotor: " + loop_where(spec) + ": plan " + kind_name(spec.kind) +
         " without partition fields; running serially");
    return Kind::serial;
  }
  return spec.kind;
}

} // namespace

ExecutionInfo plan_execution(const codegen::LoopSpec& spec, SpaceAccess& space, bool arrays_alias) {
  for (int f : spec.fields) {
    if (f < 0 || f >= space.key_count()) {
      throw std::invalid_argument("rotor: the loop at " + loop_where(spec) + ": partition field " +
                                  std::to_string(f) + " is not one of the " +
                                  std::to_string(space.key_count()) + " keys");
    }
  }
  ExecutionInfo info;
  info.kind = runnable_kind(spec, space, arrays_alias);
  if (info.kind == Kind::serial) {
    info.placement = Placement::every_rank;
    info.slots = 1;
  } else {
    info.placement = info.kind == Kind::unimodular && !distributes_skewed(spec, space)
                         ? Placement::rank_threads
                         : Placement::distributed;
    info.slots = session_state().threads;
  }
  return info;
}

void execute(const codegen::LoopSpec& spec, SpaceAccess& space, std::vector<ArrayBinding>& arrays,
             const std::vector<int>& spec_index, CellRunner& runner, const ExecutionInfo& info) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  LoopProbe& probe = loop_probe();
  probe.begin(spec, info, space);
  LoopRun run{spec,   space, arrays, spec_index,
              runner, info,  probe,  order_wanted() && !space.is_index_space()};
  const std::string summary = make_executor(info)->run(run);
  if (spec.writes_records && !space.is_index_space()) {
    if (std::uint64_t* version = space.version()) {
      ++*version; // the body changed records: the next loop checks their keys
    }
  }
  probe.end_execute();
  if (session_state().settings.verbose &&
      (comm().rank() == 0 || std::getenv("ROTOR_VERBOSE_ALL")) && !quiet()) {
    const double dt = std::chrono::duration<double>(Clock::now() - t0).count();
    std::fprintf(stderr, "rotor: %s: %s: %d ranks x %d threads, %s, %.3f s\n",
                 loop_where(spec).c_str(), kind_name(spec.kind), comm().size(),
                 session_state().threads, summary.c_str(), dt);
  }
}

} // namespace rotor::detail
