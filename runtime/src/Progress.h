#pragma once
/// \file
/// The progress bar rank 0 draws on stderr while a loop runs, when stderr is a terminal and
/// --rotor-quiet is off: records done, rate, ETA. Workers count per chunk of records (not per
/// record) and whoever counts redraws at most 10 times a second; a loop shorter than half a
/// second draws nothing, and the bar is erased when the loop ends.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

namespace rotor::detail {

class ProgressBar {
public:
  /// Whether bars are drawn at all (rank 0, stderr a terminal, not quiet). ROTOR_PROGRESS_AFTER
  /// (seconds, default 0.5) is how long a loop runs before its bar appears (tests set 0).
  void enable(bool on);
  bool enabled() const { return enabled_; }

  /// A loop starts: `title` names it; `local_total` records run on this rank; the shown
  /// totals are scaled by `scale` (the number of ranks that share the work).
  void begin(std::string title, std::uint64_t local_total, int scale);
  void set_total(std::uint64_t local_total) { total_.store(local_total); }
  /// Thread-safe: `n` more records done on this rank.
  void add(std::uint64_t n);
  /// The loop ended: erases the bar if it was drawn.
  void end();
  bool running() const { return running_; }

private:
  using Clock = std::chrono::steady_clock;
  void draw(Clock::time_point now);

  bool enabled_ = false;
  bool running_ = false;
  std::string title_;
  int scale_ = 1;
  std::int64_t first_draw_ns_ = 0;
  Clock::time_point start_;
  std::atomic<std::uint64_t> total_{0}, done_{0};
  std::atomic<std::int64_t> next_draw_ns_{0};
  std::atomic<bool> drawing_{false}, drawn_{false};
};

/// "1.23M" style counts for the bar.
std::string short_count(double v);

} // namespace rotor::detail
