#pragma once
/// \file
/// The runtime's access to a LoopFrame's internals (RunLoop.cpp builds the slots, Validate.cpp
/// builds a frame for the serial replay). Not for user code.

#include "rotor/runtime/detail/LoopFrame.h"

namespace rotor::detail {

struct LoopFrameAccess {
  static auto& arrays(LoopFrame& f) { return f.arrays_; }
  static auto& reductions(LoopFrame& f) { return f.reductions_; }
  static auto& slot_arrays(LoopFrame& f) { return f.slot_arrays_; }
  static auto& slot_reductions(LoopFrame& f) { return f.slot_reductions_; }
  static auto& copies(LoopFrame& f) { return f.copies_; }
  static auto& partial_storage(LoopFrame& f) { return f.partial_storage_; }
  static auto& merges(LoopFrame& f) { return f.merges_; }
  static auto& coordinator(LoopFrame& f) { return f.coordinator_; }
  static auto& flusher(LoopFrame& f) { return f.flusher_; }
  static auto& sparse_capable(LoopFrame& f) { return f.sparse_capable_; }
  static auto& sparse(LoopFrame& f) { return f.sparse_; }
  static auto& array_views(LoopFrame& f) { return f.array_views_; }
};

} // namespace rotor::detail
