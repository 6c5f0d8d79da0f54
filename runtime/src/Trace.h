#pragma once
/// \file
/// The trace (--rotor-trace=FILE): every rank keeps the spans of its workers (block compute,
/// sends, receives, waits) in per-thread buffers; at the session's end rank 0 gathers them over
/// the Comm and writes Chrome trace-event JSON (pid = rank, tid = worker thread), which
/// ui.perfetto.dev and chrome://tracing open. Format: docs/design/observability.md.

#include <chrono>
#include <cstdint>
#include <string>

namespace rotor::detail {

class Comm;

enum class SpanKind : std::int32_t { compute, send, recv, wait, sync, layout, merge };

/// Starts recording for `threads` worker tracks. Rank 0 checks that FILE can be written (every
/// rank learns the answer) and throws std::runtime_error naming it otherwise.
void start_trace(const std::string& path, int threads, Comm& comm);
bool trace_on();
/// Adds a span to worker `thread`'s track. A thread only adds to its own track (the driver
/// thread adds between steps, when no worker runs). `arg`: the block (compute) or bytes (>= 0).
void add_span(int thread, SpanKind kind, std::chrono::steady_clock::time_point start,
              std::chrono::steady_clock::time_point end, std::int64_t arg = -1);
/// Gathers every rank's spans to rank 0, which writes FILE; collective. Stops recording.
void finish_trace(Comm& comm);

} // namespace rotor::detail
