#pragma once
/// \file
/// The metrics file (--rotor-metrics=FILE): JSON lines written by rank 0, one `run` line, then
/// a `loop` line per loop execution and a `metric` line per rotor::report_metric call. The
/// format is docs/design/observability.md; tools/rotor-plot reads it.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rotor::detail {

/// One worker's share of a loop execution.
struct WorkerTimes {
  int rank = 0, thread = 0;
  double compute_s = 0; ///< in the loop body
  double comm_s = 0;    ///< moving blocks and syncing arrays, not hidden behind compute
  double wait_s = 0;    ///< idle in a step while other workers computed (load imbalance)
  double layout_s = 0;  ///< placing records: gathering, moving between ranks, sorting by cell
  std::uint64_t records = 0;
};

struct LoopMetrics {
  std::string loop; ///< file:line
  std::string plan;
  int execution = 0; ///< 1 for the loop's first execution
  double t = 0;      ///< seconds since the session started, at the loop's end
  double seconds = 0;
  std::uint64_t records = 0;
  std::uint64_t bytes_moved = 0;
  bool redundant = false;  ///< every rank ran every record (serial plans)
  std::vector<int> blocks; ///< per partition field: blocks (tiles included); empty: none
  std::vector<int> tiles;  ///< per partition field: tiles per block
  std::vector<WorkerTimes> workers;
};

/// Opens FILE for rank 0 and writes the `run` line. Throws std::runtime_error naming the file.
void open_metrics(const std::string& path, const std::string& program, const std::string& label,
                  int ranks, int threads);
bool metrics_open();
void write_loop_metrics(const LoopMetrics& m);
void close_metrics();

/// Seconds since the observability clock started (the session's start).
double session_seconds();
void reset_session_clock();

/// `text` as a JSON string literal (quoted, escaped).
std::string json_string(std::string_view text);
/// A JSON number (%.8g; integers exactly), or null for NaN and infinities.
std::string json_number(double v);

} // namespace rotor::detail
