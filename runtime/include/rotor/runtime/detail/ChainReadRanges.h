#pragma once
/// \file
/// The bytes a ragged nest's inspector read through pointer chains (rotor/runtime/ChainReads.h),
/// live on the calling thread until the loop ends, so that run_loop can check that the loop
/// writes none of them. Not for user code.

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace rotor::detail {

struct ChainReadRanges {
  /// [begin, end) of each run of bytes read, coalesced where consecutive reads touch.
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> ranges;
  /// Set by the first run_loop after the inspector (its own loop's): a loop the body runs on
  /// this thread meanwhile is not checked against these ranges (and never declined for them).
  bool claimed = false;
};

inline thread_local std::vector<ChainReadRanges*> live_chain_reads_value;
/// Memory of the program's own that a loop running now writes in the serial program but the
/// executors do not bind (a staged std::vector table's own rows, a private variable's outside
/// object): registered by StagedTable and WorkerCopies for their lifetime.
inline thread_local std::vector<const ChainReadRanges*> live_written_originals_value;
/// Set by run_loop when it declined a loop whose chain reads the loop writes; taken (and
/// cleared) by the code rotor-cc writes after the loop, which then runs the loop as written.
inline thread_local bool chain_loop_declined_value = false;

inline std::vector<ChainReadRanges*>& live_chain_reads() {
  return live_chain_reads_value;
}

/// Registers `ranges` (ranges of memory the loop writes in the serial program) while alive.
class WrittenOriginals {
public:
  WrittenOriginals() { live_written_originals_value.push_back(&live_); }
  ~WrittenOriginals() {
    auto& live = live_written_originals_value;
    for (auto it = live.begin(); it != live.end(); ++it) {
      if (*it == &live_) {
        live.erase(it);
        break;
      }
    }
  }
  WrittenOriginals(const WrittenOriginals&) = delete;
  WrittenOriginals& operator=(const WrittenOriginals&) = delete;
  void add(const void* data, std::size_t bytes) {
    const auto begin = reinterpret_cast<std::uintptr_t>(data);
    if (bytes > 0) {
      live_.ranges.emplace_back(begin, begin + bytes);
    }
  }

private:
  ChainReadRanges live_;
};

} // namespace rotor::detail
