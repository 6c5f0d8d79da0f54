#include "MemoryCheck.h"

#include "LoopWhere.h"
#include "SessionState.h"
#include "rotor/distarray/MemoryLimit.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

namespace rotor::detail {
namespace {

/// Bytes this rank may still use: the one definition, distarray's rank_memory_limit()
/// (ROTOR_MEMORY_AVAILABLE, else MemAvailable / ranks on the node).
double available_bytes() {
  return rank_memory_limit();
}

std::string human(double bytes) {
  char buf[32];
  if (bytes >= 1e9) {
    std::snprintf(buf, sizeof buf, "%.1f GB", bytes / 1e9);
  } else if (bytes >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.1f MB", bytes / 1e6);
  } else {
    std::snprintf(buf, sizeof buf, "%.0f bytes", bytes);
  }
  return buf;
}

} // namespace

void check_loop_memory(const codegen::LoopSpec& spec, SpaceAccess& space,
                       std::size_t bound_array_bytes, std::size_t buffered_array_bytes, int slots) {
  static std::set<std::pair<std::string, int>> checked;
  if (!checked.emplace(spec.file, spec.line).second) {
    return;
  }
  const double buffers = static_cast<double>(buffered_array_bytes) * std::max(1, slots);
  const double records = space.is_index_space() ? 0.0
                                                : static_cast<double>(space.local_count()) *
                                                      static_cast<double>(space.record_bytes());
  const double snapshots = session_state().settings.checkpoint_dir.empty()
                               ? 0.0
                               : static_cast<double>(bound_array_bytes);
  const double need = buffers + records + snapshots;
  const double have = available_bytes();
  Comm& c = comm();
  std::int64_t over = (have > 0 && need > have) ? 1 : 0;
  std::int64_t any_over = over;
  c.allreduce_max(&any_over, 1);
  if (any_over == 0) {
    return;
  }
  std::string msg = "rotor: the loop at " + loop_where(spec) + " would not fit in memory: ";
  if (over) {
    msg = "[rank " + std::to_string(c.rank()) + "] " + msg + "it needs about " + human(need) +
          " more on this rank (worker copies of buffered arrays " + human(buffers) +
          ", records in transit " + human(records) + ", checkpoint snapshots " + human(snapshots) +
          ") but " + human(have) +
          " is available to it (MemAvailable / ranks on this node, or ROTOR_MEMORY_AVAILABLE); "
          "use more nodes, fewer ranks per node or fewer --rotor-threads";
    std::fprintf(stderr, "%s\n", msg.c_str());
  } else {
    msg += "another rank lacks memory (see its message)";
  }
  throw std::runtime_error(msg);
}

} // namespace rotor::detail
