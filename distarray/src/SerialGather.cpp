// The gather a dataset's first serial access after a parallel loop makes (Dataset::settle):
// the order of the gathered records, the gather count, the watchdog's hooks.
#include "rotor/distarray/Dataset.h"
#include "rotor/distarray/detail/DatasetInternals.h"

#include <atomic>
#include <stdexcept>
#include <string>

namespace rotor::detail {
namespace {
SerialGatherHooks installed_gather_hooks;
std::atomic<std::uint64_t> gathers{0};
} // namespace

std::vector<std::size_t> order_of_positions(const std::vector<std::uint32_t>& positions) {
  const std::size_t n = positions.size();
  constexpr std::size_t unset = static_cast<std::size_t>(-1);
  std::vector<std::size_t> order(n, unset);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t p = positions[i];
    if (p >= n || order[p] != unset) {
      throw std::logic_error("rotor: internal: record positions are not a permutation (record " +
                             std::to_string(i) + " at position " + std::to_string(p) + " of " +
                             std::to_string(n) + ")");
    }
    order[p] = i;
  }
  return order;
}

void set_serial_gather_hooks(const SerialGatherHooks& hooks) {
  installed_gather_hooks = hooks;
}

SerialGatherScope::SerialGatherScope(const char* loop_file, int loop_line) {
  gathers.fetch_add(1, std::memory_order_relaxed);
  if (installed_gather_hooks.begin) {
    installed_gather_hooks.begin(loop_file, loop_line);
  }
}

SerialGatherScope::~SerialGatherScope() {
  if (installed_gather_hooks.end) {
    installed_gather_hooks.end();
  }
}

std::uint64_t serial_gather_count() {
  return gathers.load(std::memory_order_relaxed);
}

} // namespace rotor::detail
