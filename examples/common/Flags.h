#pragma once
/// \file
/// Command-line flags for the examples and rotor-gen: `--name VALUE`, `--name=VALUE`, or a bare
/// `--name` (a switch). Header-only and standard-library-only, so the serial builds need nothing
/// else. A bad value or an unknown flag prints `program: error: ...` and the usage, exit code 2.
///
/// \code
///   rotor::examples::Flags flags(argc, argv, "sgd_mf", "--data TRAIN [--k 32] ...");
///   std::string data = flags.required("data");
///   int k = static_cast<int>(flags.integer("k", 32));
///   flags.finish();   // rejects flags nobody asked for
/// \endcode

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>

namespace rotor::examples {

class Flags {
public:
  Flags(int argc, char** argv, std::string program, std::string usage)
      : program_(std::move(program)), usage_(std::move(usage)) {
    for (int i = 1; i < argc; ++i) {
      std::string arg = argv[i];
      if (arg == "-h" || arg == "--help") {
        std::printf("usage: %s %s\n", program_.c_str(), usage_.c_str());
        std::exit(0);
      }
      if (arg.size() < 3 || arg.compare(0, 2, "--") != 0) {
        fail("unexpected argument '" + arg + "'");
      }
      arg = arg.substr(2);
      const auto eq = arg.find('=');
      if (eq != std::string::npos) {
        values_[arg.substr(0, eq)] = arg.substr(eq + 1);
      } else if (i + 1 < argc && std::string(argv[i + 1]).compare(0, 2, "--") != 0) {
        values_[arg] = argv[++i];
      } else {
        values_[arg] = "";
        switches_.insert(arg);
      }
    }
  }

  bool has(const std::string& name) {
    used_.insert(name);
    return values_.count(name) != 0;
  }
  /// A bare switch (`--header`); `--header=0` or `--header false` turn it off.
  bool flag(const std::string& name) {
    if (!has(name)) {
      return false;
    }
    const std::string& v = values_[name];
    return !(v == "0" || v == "false" || v == "no");
  }
  std::string str(const std::string& name, const std::string& fallback) {
    return has(name) ? value_of(name) : fallback;
  }
  std::string required(const std::string& name) {
    if (!has(name)) {
      fail("missing required flag --" + name);
    }
    return value_of(name);
  }
  std::int64_t integer(const std::string& name, std::int64_t fallback) {
    if (!has(name)) {
      return fallback;
    }
    const std::string v = value_of(name);
    char* end = nullptr;
    errno = 0;
    const long long x = std::strtoll(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0' || errno != 0) {
      fail("--" + name + ": expected an integer, got '" + v + "'");
    }
    return x;
  }
  double real(const std::string& name, double fallback) {
    if (!has(name)) {
      return fallback;
    }
    const std::string v = value_of(name);
    char* end = nullptr;
    errno = 0;
    const double x = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0' || errno != 0 || x != x) {
      fail("--" + name + ": expected a number, got '" + v + "'");
    }
    return x;
  }
  /// Fails unless lo <= value <= hi (for values already read).
  template <class T> T in_range(const std::string& name, T value, T lo, T hi) {
    if (value < lo || value > hi) {
      fail("--" + name + ": " + std::to_string(value) + " is out of range [" + std::to_string(lo) +
           ", " + std::to_string(hi) + "]");
    }
    return value;
  }
  /// Rejects flags that were given but never asked for.
  void finish() {
    for (const auto& kv : values_) {
      if (used_.count(kv.first) == 0) {
        fail("unknown flag --" + kv.first);
      }
    }
  }
  [[noreturn]] void fail(const std::string& message) const {
    std::fprintf(stderr, "%s: error: %s\nusage: %s %s\n", program_.c_str(), message.c_str(),
                 program_.c_str(), usage_.c_str());
    std::exit(2);
  }

private:
  std::string value_of(const std::string& name) {
    if (switches_.count(name) != 0) {
      fail("--" + name + " needs a value");
    }
    return values_[name];
  }

  std::string program_;
  std::string usage_;
  std::map<std::string, std::string> values_;
  std::set<std::string> switches_;
  std::set<std::string> used_;
};

} // namespace rotor::examples
