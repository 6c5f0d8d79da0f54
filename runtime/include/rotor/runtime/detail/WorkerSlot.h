#pragma once
/// \file
/// Which worker slot the calling thread runs loop bodies for (per-worker copies, Private.h).
/// Not for user code.

namespace rotor::detail {

/// The slot of the body loop running on this thread; -1 outside any.
inline thread_local int current_worker_slot_value = -1;

inline int current_worker_slot() {
  return current_worker_slot_value;
}

/// Sets the calling thread's slot for its lifetime (BodyLoop, RunLoop.h); restores the previous
/// value after, so a nested loop's body does not change its caller's slot.
class WorkerSlotScope {
public:
  explicit WorkerSlotScope(int slot) : previous_(current_worker_slot_value) {
    current_worker_slot_value = slot;
  }
  ~WorkerSlotScope() { current_worker_slot_value = previous_; }
  WorkerSlotScope(const WorkerSlotScope&) = delete;
  WorkerSlotScope& operator=(const WorkerSlotScope&) = delete;

private:
  int previous_;
};

} // namespace rotor::detail
