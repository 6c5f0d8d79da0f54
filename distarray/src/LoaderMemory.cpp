#include "rotor/distarray/MemoryLimit.h"
#include "rotor/distarray/detail/LoaderCore.h"

#include <algorithm>

#include <cstdio>
#include <unistd.h>

namespace rotor::detail {
namespace {
std::size_t limit_override = 0;
}

std::size_t loader_memory_limit() {
  if (limit_override != 0) {
    return limit_override;
  }
  // The one definition of the memory a rank may use (MemoryLimit.h).
  return static_cast<std::size_t>(std::min(rank_memory_limit(), 1e18));
}

void set_loader_memory_limit(std::size_t bytes) {
  limit_override = bytes;
}

std::string human_bytes(double bytes) {
  const char* units[] = {"bytes", "KB", "MB", "GB", "TB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
  return buf;
}

} // namespace rotor::detail
