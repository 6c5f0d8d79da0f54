#include "rotor/distarray/Dataset.h"

// TODO(runtime): the session's order recording / replay installs these (issue 3).
namespace rotor::detail {
bool keep_record_ids() {
  return false;
}
void replay_reorder(const void*, void*, std::size_t, std::vector<std::uint64_t>&, std::size_t) {}
} // namespace rotor::detail
