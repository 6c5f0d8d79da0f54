#pragma once
/// \file
/// Order recording and replay (--rotor-record-order / --rotor-replay-order), and an in-memory
/// capture the tests use to compare a parallel run with a serial run in the same order.
///
/// File format (text): a line `rotor-order 1`, then one entry per event on a dataset, in
/// program order:
///   `loop DATASET FILE:LINE COUNT` and a line with COUNT record ids (a parallel loop), or
///   `plain DATASET` (a plain `for` over the dataset: Dataset::begin()).
/// DATASET numbers datasets by first use. A replay run's Dataset::begin() consumes the
/// dataset's next entry: `loop` reorders the records into that order, `plain` leaves them.

#include <cstdint>
#include <string>
#include <vector>

namespace rotor::detail {

struct LoopOrder {
  int dataset = -1;
  std::string where; ///< FILE:LINE of the loop
  std::vector<std::uint64_t> ids;
};

/// Starts writing `path` (rank 0; empty: off). Turns on record ids.
void start_order_recording(const std::string& path);
void finish_order_recording();
/// Loads `path` and makes Dataset::begin() follow it (empty: off). Throws std::runtime_error
/// naming the file and line on a malformed file.
void start_order_replay(const std::string& path);
void stop_order_replay();

/// In-memory capture of every parallel loop's global order (every rank gets it); turns on ids.
void set_order_capture(bool on);
std::vector<LoopOrder> take_captured_orders();

/// --rotor-validate: loop executions validated so far in this process (for tests).
std::int64_t validated_executions();

/// True when run_loop must compute the global order of applied records.
bool order_wanted();
/// Called by run_loop (every rank, same arguments) with the global order of one loop.
void record_loop_order(const void* dataset, const char* file, int line,
                       std::vector<std::uint64_t> ids);

} // namespace rotor::detail
