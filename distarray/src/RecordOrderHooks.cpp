#include "rotor/distarray/detail/DatasetInternals.h"

// Dataset::begin() and the Dataset constructors call these; the runtime's order recorder installs
// the real behaviour (runtime/src/OrderRecorder.cpp) when the session records or replays.
namespace rotor::detail {
namespace {
RecordOrderHooks installed_hooks;
} // namespace

void set_record_order_hooks(const RecordOrderHooks& hooks) {
  installed_hooks = hooks;
}

bool keep_record_ids() {
  return installed_hooks.keep_ids && installed_hooks.keep_ids();
}

void replay_reorder(const void* identity, void* records, std::size_t record_bytes,
                    std::vector<std::uint64_t>& ids, std::size_t count) {
  if (installed_hooks.on_begin) {
    installed_hooks.on_begin(identity, records, record_bytes, ids, count);
  }
}

void record_order_changed(const void* identity) {
  if (installed_hooks.on_new_order) {
    installed_hooks.on_new_order(identity);
  }
}
} // namespace rotor::detail
