// The memory a rank may use, and the check of allocations sized by the input (issue 20, item 6).
#include "rotor/distarray/MemoryLimit.h"

#include "rotor/distarray/detail/Collective.h"
#include "rotor/distarray/detail/LoaderCore.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <unistd.h>
#include <vector>

namespace rotor::detail {
namespace {

int ranks_on_node() {
  for (const char* var : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "PMI_LOCAL_SIZE"}) {
    if (const char* v = std::getenv(var); v && *v) {
      return std::max(1, std::atoi(v));
    }
  }
  return 1;
}

double mem_available_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemAvailable:") {
      return kib * 1024.0;
    }
  }
  return 0;
}

double physical_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 1e18;
}

double agreed = 0;

struct NotedExtent {
  std::int64_t extent;
  KeyOrigin origin;
};
std::mutex noted_mutex;
std::vector<NotedExtent> noted; // the last few, newest last

} // namespace

double rank_memory_limit() {
  if (const char* v = std::getenv("ROTOR_MEMORY_AVAILABLE"); v && *v) {
    const double b = std::strtod(v, nullptr);
    if (b > 0) {
      return b;
    }
  }
  const double avail = mem_available_bytes();
  return avail > 0 ? avail / ranks_on_node() : physical_bytes();
}

std::string rank_memory_limit_source() {
  if (const char* v = std::getenv("ROTOR_MEMORY_AVAILABLE");
      v && *v && std::strtod(v, nullptr) > 0) {
    return "ROTOR_MEMORY_AVAILABLE";
  }
  const int ranks = ranks_on_node();
  return "MemAvailable / " + std::to_string(ranks) + (ranks == 1 ? " rank" : " ranks") +
         " on this node; ROTOR_MEMORY_AVAILABLE=BYTES overrides it";
}

void set_agreed_memory_limit(double bytes) {
  agreed = bytes;
}

double agreed_memory_limit() {
  return agreed > 0 ? agreed : rank_memory_limit();
}

void note_extent(std::int64_t extent, const KeyOrigin& origin) {
  std::lock_guard<std::mutex> lock(noted_mutex);
  for (auto it = noted.begin(); it != noted.end(); ++it) {
    if (it->extent == extent) {
      noted.erase(it);
      break;
    }
  }
  noted.push_back({extent, origin});
  if (noted.size() > 32) {
    noted.erase(noted.begin());
  }
}

std::string extent_origin(std::int64_t extent) {
  std::lock_guard<std::mutex> lock(noted_mutex);
  for (auto it = noted.rbegin(); it != noted.rend(); ++it) {
    if (it->extent == extent) {
      const KeyOrigin& o = it->origin;
      std::string s = "the largest id of field " + std::to_string(o.field);
      if (o.column > 0) {
        s += " (column " + std::to_string(o.column) + ")";
      }
      s += ", " + std::to_string(o.max) + " at " + o.file;
      if (o.line > 0) {
        s += ":" + std::to_string(o.line);
      }
      return s;
    }
  }
  return {};
}

void check_allocation(const std::string& what, const std::int64_t* shape, int dims,
                      std::size_t element_bytes) {
  double bytes = static_cast<double>(element_bytes);
  for (int d = 0; d < dims; ++d) {
    bytes *= static_cast<double>(std::max<std::int64_t>(shape[d], 0));
  }
  if (bytes < static_cast<double>(1u << 20)) {
    return;
  }
  const double limit = agreed_memory_limit();
  if (bytes <= limit) {
    return;
  }
  std::string shape_text = "{";
  for (int d = 0; d < dims; ++d) {
    shape_text += (d ? ", " : "") + std::to_string(shape[d]);
  }
  shape_text += "}";
  char amount[64];
  std::snprintf(amount, sizeof amount, "%.0f bytes (%s)", bytes, human_bytes(bytes).c_str());
  std::string msg = "[rank " + std::to_string(collective().rank()) + "] rotor: " + what +
                    " of shape " + shape_text + " needs " + amount + ", more than the " +
                    human_bytes(limit) + " a rank may use (" +
                    (agreed > 0 ? "the smallest over the ranks at start, " : "") +
                    rank_memory_limit_source() + ")";
  std::string origins;
  for (int d = 0; d < dims; ++d) {
    const std::string o = shape[d] > 1 ? extent_origin(shape[d]) : std::string();
    if (!o.empty()) {
      origins += (origins.empty() ? "" : "; ") + std::string("extent ") + std::to_string(d) + " (" +
                 std::to_string(shape[d]) + ") is one more than " + o;
    }
  }
  if (!origins.empty()) {
    msg += "; " + origins +
           "; if the ids are sparse (hashed or taken from logs), remap them to dense ids 0..n-1 "
           "(load them with rotor::CsvOptions::named_fields, which numbers the distinct ids in "
           "order of appearance, or renumber the file; distarray/README.md, \"Sparse ids\")";
  } else {
    msg += "; if a dimension is an id extent of sparse ids, remap them to dense ids 0..n-1 "
           "(rotor::CsvOptions::named_fields; distarray/README.md, \"Sparse ids\"), otherwise "
           "use more memory per rank";
  }
  throw MemoryError(msg);
}

} // namespace rotor::detail
