#include "GpuSettings.h"

#include "rotor/runtime/Session.h"

#include <cstdlib>
#include <limits>

namespace rotor::detail {
namespace {

std::uint64_t limit = 0;
bool limit_seen = false;

} // namespace

std::uint64_t gpu_memory_limit() {
  return limit;
}

void set_gpu_memory_limit(std::uint64_t bytes) {
  limit = bytes;
}

std::uint64_t parse_byte_count(const std::string& what, const std::string& value) {
  const auto bad = [&]() {
    return SettingsError("rotor: " + what + "='" + value +
                         "': expected a positive number of bytes, optionally with a K, M or G "
                         "suffix (e.g. 8G)");
  };
  std::string digits = value;
  int shift = 0;
  if (!digits.empty()) {
    const char unit = digits.back();
    shift = unit == 'K' || unit == 'k'   ? 10
            : unit == 'M' || unit == 'm' ? 20
            : unit == 'G' || unit == 'g' ? 30
                                         : 0;
    if (shift != 0) {
      digits.pop_back();
    }
  }
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos ||
      digits.size() > 19) {
    throw bad();
  }
  const unsigned long long v = std::stoull(digits);
  if (v == 0 || v > (std::numeric_limits<std::uint64_t>::max() >> shift)) {
    throw bad();
  }
  return static_cast<std::uint64_t>(v) << shift;
}

bool parse_gpu_flag(const std::string& name, const std::string& value, bool has_value) {
  if (name != "--rotor-gpu-memory") {
    return false;
  }
  if (!has_value || value.empty()) {
    throw SettingsError("rotor: --rotor-gpu-memory needs a value (--rotor-gpu-memory=BYTES)");
  }
  limit = parse_byte_count(name, value);
  limit_seen = true;
  return true;
}

void gpu_from_environment() {
  if (const char* v = std::getenv("ROTOR_GPU_MEMORY"); v && !limit_seen) {
    limit = parse_byte_count("ROTOR_GPU_MEMORY", v);
  }
}

std::string gpu_flags_help() {
  return "--rotor-gpu-memory=BYTES";
}

} // namespace rotor::detail
