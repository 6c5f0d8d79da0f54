#pragma once
/// \file
/// Small helpers the examples share for their output: a stopwatch, compact number formatting
/// (`4.1e7`, as in the closing lines of the contract) and a hash of an array's bytes (so the
/// end-to-end tests can check bitwise equality from the closing line alone).

#include "rotor/runtime/Session.h"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

namespace rotor::examples {

/// Times an epoch, and tells whether --rotor-resume restored its loops from the checkpoint
/// instead of running them (then its seconds say nothing about speed).
class Stopwatch {
public:
  Stopwatch()
      : start_(std::chrono::steady_clock::now()),
        restored_before_(rotor::restored_loop_executions()) {}
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  bool restored() const { return rotor::restored_loop_executions() > restored_before_; }

private:
  std::chrono::steady_clock::time_point start_;
  std::int64_t restored_before_;
};

/// `value` with `digits` significant digits in short scientific form: 41000000 -> "4.1e7".
inline std::string sci(double value, int digits = 2) {
  if (!std::isfinite(value)) {
    return std::isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf");
  }
  if (value == 0) {
    return "0";
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*e", digits - 1, value);
  std::string s = buf;
  const auto e = s.find('e');
  std::string mantissa = s.substr(0, e);
  const int exponent = std::stoi(s.substr(e + 1));
  if (mantissa.find('.') != std::string::npos) { // drop trailing zeros: 4.10 -> 4.1, 4.0 -> 4
    while (mantissa.back() == '0') {
      mantissa.pop_back();
    }
    if (mantissa.back() == '.') {
      mantissa.pop_back();
    }
  }
  return exponent == 0 ? mantissa : mantissa + "e" + std::to_string(exponent);
}

/// An epoch line's throughput, `work / seconds` in short form, or `restored` for an epoch that
/// --rotor-resume took from the checkpoint (its loops did not run).
inline std::string epoch_rate(double work, double seconds, bool restored) {
  return restored ? "restored" : sci(seconds > 0 ? work / seconds : 0);
}

/// FNV-1a over `bytes` bytes, continuing from `h`.
inline std::uint64_t fnv1a(const void* data, std::size_t bytes,
                           std::uint64_t h = 0xcbf29ce484222325ULL) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < bytes; ++i) {
    h = (h ^ p[i]) * 0x100000001b3ULL;
  }
  return h;
}

inline std::string hex64(std::uint64_t h) {
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

} // namespace rotor::examples
