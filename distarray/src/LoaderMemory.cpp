#include "rotor/distarray/detail/LoaderCore.h"

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
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page)
                               : static_cast<std::size_t>(-1);
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
