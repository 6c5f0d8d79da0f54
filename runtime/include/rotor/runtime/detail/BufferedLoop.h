#pragma once
/// \file
/// Not for user code: the part of buffered arrays (rotor/runtime/Buffered.h) that a rewritten
/// loop instantiates. A worker's record loop ticks its FlushTrigger; each buffered array's merge
/// is made by make_buffered_merge, compiled once per element type in runtime/src
/// (BufferedMerge.cpp); the flush coordinator, settings and statistics live in
/// runtime/src/BufferedFlush.h.

#include "rotor/distarray/DistArray.h"
#include "rotor/distarray/detail/ElementType.h"
#include "rotor/runtime/detail/SparseBuffer.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace rotor::detail {

/// One value per worker on its own cache line: each worker updates its own on the flush path,
/// sharing neither a line nor a race with the others.
template <class V> struct alignas(64) PerWorker { V value{}; };

/// The worker side of a loop's flush coordinator (runtime/src/BufferedFlush.h): counts each
/// worker's records and flushes its buffers every `every` records.
class FlushTrigger {
public:
  FlushTrigger(const FlushTrigger&) = delete;
  FlushTrigger& operator=(const FlushTrigger&) = delete;

  /// Called by the worker after each record.
  void after_record(int slot) {
    if (every_ > 0 && ++since_[static_cast<std::size_t>(slot)].value == every_) {
      flush(slot);
    }
  }
  /// The worker threw: nobody waits any more.
  virtual void fail() = 0;

protected:
  FlushTrigger(int slots, std::int64_t every)
      : every_(every), since_(static_cast<std::size_t>(slots)) {}
  ~FlushTrigger() = default;
  /// The worker's flush: publishes its changes, may wait for merged rounds (SSP).
  virtual void flush(int slot) = 0;

  std::int64_t every_;
  std::vector<PerWorker<std::int64_t>> since_; ///< records since each slot's last flush
};

class BufferedMerge;

/// The merge of one buffered array (runtime/src/BufferedMerge.h), given its element type, the
/// array (`array`, its `n` elements at `data`, `width` elements per row) and its workers'
/// buffers: each `T*` data of a dense copy, or (sparse) a `SparseRows<T>*`. The caller owns it.
BufferedMerge* make_buffered_merge(ElementType type, const void* array, void* data, std::int64_t n,
                                   std::int64_t width, const std::vector<void*>& buffers,
                                   bool sparse);

/// The merge of `array` from its `count` worker buffers `objects` (DistArray<T, N> copies, or
/// SparseBuffer<T, N> when `sparse`).
template <class T, int N>
BufferedMerge* make_buffered_merge(DistArray<T, N>& array, void* const* objects, std::size_t count,
                                   bool sparse) {
  std::vector<void*> buffers(count);
  for (std::size_t k = 0; k < count; ++k) {
    buffers[k] = sparse ? static_cast<void*>(static_cast<SparseRows<T>*>(
                              static_cast<SparseBuffer<T, N>*>(objects[k])))
                        : static_cast<void*>(static_cast<DistArray<T, N>*>(objects[k])->data());
  }
  const std::int64_t width = N == 1 || array.size() == 0 ? 1 : array.size() / array.extent(0);
  return make_buffered_merge(element_type_of<T>(), &array, array.data(), array.size(), width,
                             buffers, sparse);
}

} // namespace rotor::detail
