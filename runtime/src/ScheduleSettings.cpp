#include "ScheduleSettings.h"

#include "rotor/runtime/Session.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <utility>

namespace rotor::detail {
namespace {

ScheduleSettings settings;
bool blocks_seen = false, seed_seen = false;
std::map<std::pair<std::string, int>, std::uint64_t> executions; // the engine's thread only
std::uint64_t current_execution = 0;

/// A whole number in [lo, hi], or SettingsError naming `what` and the value.
std::uint64_t parse_number(const std::string& what, const std::string& value, std::uint64_t lo,
                           std::uint64_t hi) {
  std::size_t used = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(value, &used, 10);
  } catch (const std::exception&) {
    used = 0;
  }
  if (value.empty() || used != value.size() || value[0] == '-' || v < lo || v > hi) {
    throw SettingsError("rotor: " + what + "='" + value + "': expected a whole number from " +
                        std::to_string(lo) + " to " + std::to_string(hi));
  }
  return v;
}

int parse_blocks(const std::string& what, const std::string& value) {
  if (value == "auto") {
    return 0;
  }
  return static_cast<int>(parse_number(what + " (or auto)", value, 1, 4096));
}

std::uint64_t parse_seed(const std::string& what, const std::string& value) {
  return parse_number(what, value, 0, std::numeric_limits<std::uint64_t>::max());
}

/// "2048K" -> 2097152 (sysfs cache sizes); 0 when unreadable.
std::size_t sysfs_size(const std::string& path) {
  std::ifstream in(path);
  std::size_t v = 0;
  char unit = 0;
  if (!(in >> v)) {
    return 0;
  }
  in >> unit;
  return unit == 'K' ? v << 10 : unit == 'M' ? v << 20 : v;
}

} // namespace

const ScheduleSettings& schedule_settings() {
  return settings;
}

bool parse_schedule_flag(const std::string& name, const std::string& value, bool has_value) {
  if (name != "--rotor-blocks" && name != "--rotor-order-seed") {
    return false;
  }
  if (!has_value || value.empty()) {
    throw SettingsError("rotor: " + name + " needs a value (" + name +
                        (name == "--rotor-blocks" ? "=N|auto)" : "=SEED)"));
  }
  if (name == "--rotor-blocks") {
    settings.blocks = parse_blocks(name, value);
    blocks_seen = true;
  } else {
    settings.order_seed = parse_seed(name, value);
    seed_seen = true;
  }
  return true;
}

void schedule_from_environment() {
  if (const char* v = std::getenv("ROTOR_BLOCKS"); v && !blocks_seen) {
    settings.blocks = parse_blocks("ROTOR_BLOCKS", v);
  }
  if (const char* v = std::getenv("ROTOR_ORDER_SEED"); v && !seed_seen) {
    settings.order_seed = parse_seed("ROTOR_ORDER_SEED", v);
  }
}

std::string schedule_flags_help() {
  return "--rotor-blocks=N|auto, --rotor-order-seed=SEED";
}

std::uint64_t begin_loop_execution(const char* file, int line) {
  current_execution = executions[{file ? file : "", line}]++;
  return current_execution;
}

std::uint64_t current_loop_execution() {
  return current_execution;
}

void forget_loop_executions() {
  executions.clear();
  current_execution = 0;
}

std::size_t l2_cache_bytes() {
  static const std::size_t bytes = [] {
    const long reported = sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (reported > 0) {
      return static_cast<std::size_t>(reported);
    }
    for (int index = 0; index < 8; ++index) {
      const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
      std::ifstream level(dir + "/level");
      int l = 0;
      if (level >> l && l == 2) {
        if (const std::size_t size = sysfs_size(dir + "/size")) {
          return size;
        }
      }
    }
    return std::size_t{1} << 20;
  }();
  return bytes;
}

} // namespace rotor::detail
