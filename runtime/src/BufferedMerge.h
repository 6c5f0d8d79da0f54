#pragma once
/// \file
/// The merge of one buffered array: the interface the flush coordinator drives
/// (BufferedFlush.h); one implementation per element type in BufferedMerge.cpp, made by
/// make_buffered_merge (rotor/runtime/detail/BufferedLoop.h).

#include <cstddef>
#include <cstdint>
#include <vector>

namespace rotor::detail {

/// Type-erased merge operations of one buffered array (the coordinator drives them).
class BufferedMerge {
public:
  virtual ~BufferedMerge() = default;
  /// Flush mode: per-slot base and `ring` pending delta arrays.
  virtual void start_flushing(int ring) = 0;
  /// pending[slot][ring] = copy - base: the worker's flush `clock`. With managed communication
  /// (set_managed) only the largest changes within the budget, and those held back for s flushes;
  /// the rest stays in the worker's view. `final`: the worker's last flush, everything.
  virtual void take(int slot, int ring, std::int64_t clock, bool final) = 0;
  /// Managed communication: each flush of a worker sends at most `budget_bytes` of (index, value)
  /// rows, largest |delta| first, and holds the rest back for at most `hold` flushes.
  virtual void set_managed(std::int64_t budget_bytes, int hold) = 0;
  /// Managed communication: rows the workers' flushes held back, summed over flushes.
  virtual std::int64_t held_rows() const = 0;
  /// Sums pending[s][rings[s]] (rings[s] >= 0) in slot order; merges across ranks.
  virtual void prepare_round(const std::vector<int>& rings, bool across) = 0;
  /// Sums (copy - array) over the slots: the loop-end flush; merges across ranks.
  virtual void prepare_loop_end(bool across) = 0;
  /// Applies the prepared merge to the array (the caller holds the table lock).
  virtual void apply() = 0;
  /// The number of workers whose changes one merge adds (buffered_mean divides by it).
  virtual void set_workers(int workers) = 0;
  /// copy = array + pending[slot][r] for r in rings; base = copy; copy += the changes held back.
  virtual void refresh(int slot, const std::vector<int>& rings) = 0;
  /// The largest fraction of the array's rows one worker touched between two merges (sparse
  /// buffers: rows read or written; dense copies: rows changed). Chooses the next buffer kind.
  virtual double worker_density() const = 0;
  /// Bytes this rank holds for the workers' buffers, bases and pending flushes.
  virtual std::size_t buffer_bytes() const = 0;
};

} // namespace rotor::detail
