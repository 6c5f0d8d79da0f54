#pragma once
/// \file
/// --rotor-metrics (JSON lines, rank 0) and --rotor-trace (Chrome trace events, gathered to
/// rank 0 when the session ends). Formats: docs/design/observability.md.

#include "rotor/runtime/Session.h"

#include <cstdint>
#include <string>
#include <vector>

namespace rotor::detail {

void start_observability(const SessionSettings& settings, const char* program, int ranks,
                         int threads);
/// Writes the trace (collective: every rank calls it).
void finish_observability();

bool metrics_on();
bool tracing_on();
/// Seconds since the session started.
double session_seconds();

/// One span of a worker (tid = thread; the communication track is tid = threads).
void trace_event(const char* name, double start_s, double duration_s, int tid, std::int64_t block,
                 std::int64_t bytes);

struct WorkerStats {
  int worker = 0, rank = 0, thread = 0;
  double compute_s = 0, comm_s = 0, wait_s = 0;
  std::int64_t records = 0;
};

/// One loop execution (collective): gathers the workers' stats; rank 0 writes a `loop` line.
void record_loop_metrics(const std::string& where, const char* plan, double seconds,
                         std::int64_t bytes, const std::vector<WorkerStats>& mine);

} // namespace rotor::detail
