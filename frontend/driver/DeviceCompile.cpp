#include "DeviceCompile.h"

#include <algorithm>

namespace rotor::driver {
namespace {

bool starts_with(const std::string& a, const char* prefix) {
  return a.rfind(prefix, 0) == 0;
}

/// Arguments that only matter when linking (or name inputs): never given to nvcc -c.
bool link_only(const std::string& a) {
  const auto ends_with = [&](const char* suffix) {
    const std::string s(suffix);
    return a.size() >= s.size() && a.compare(a.size() - s.size(), s.size(), s) == 0;
  };
  return starts_with(a, "-l") || starts_with(a, "-L") || starts_with(a, "-Wl,") || a == "-c" ||
         a == "-rdynamic" || a == "-static" || a == "-shared" || ends_with(".a") ||
         ends_with(".so") || ends_with(".o");
}

/// Flags nvcc takes itself, with their value in the next argument where `separate`.
bool nvcc_flag(const std::string& a, bool& separate) {
  separate = a == "-isystem" || a == "-include" || a == "-MF" || a == "-MT" || a == "-MQ" ||
             a == "-I" || a == "-D" || a == "-U";
  return separate || starts_with(a, "-I") || starts_with(a, "-D") || starts_with(a, "-U") ||
         starts_with(a, "-isystem") || starts_with(a, "-std=") || starts_with(a, "-O") ||
         a == "-g" || a == "-MD" || a == "-MMD";
}

} // namespace

bool has_device_body(const std::string& rewritten) {
  return rewritten.find("[ROTOR_DEVICE_CAPTURE] ROTOR_DEVICE_LAMBDA (") != std::string::npos;
}

std::vector<std::string> nvcc_command(const std::vector<std::string>& host_command,
                                      const std::vector<std::size_t>& source_positions,
                                      const std::string& source, const std::string& object,
                                      const DriverConfig& config) {
  std::vector<std::string> out = {config.nvcc, "-x", "cu", "-ccbin", host_command.at(0)};
  bool has_std = false;
  for (std::size_t i = 1; i < host_command.size(); ++i) {
    const std::string& a = host_command[i];
    if (std::find(source_positions.begin(), source_positions.end(), i) != source_positions.end()) {
      continue;
    }
    if (a == "-o") {
      ++i; // nvcc gets `object`
      continue;
    }
    if (a == "-iquote" && i + 1 < host_command.size()) {
      out.push_back("-I" + host_command[++i]); // nvcc has no -iquote
      continue;
    }
    if (link_only(a) || a.empty() || a[0] != '-') {
      continue;
    }
    if (starts_with(a, "-isystem") && a.size() > 8) {
      out.insert(out.end(), {"-isystem", a.substr(8)}); // nvcc wants the directory apart
      continue;
    }
    bool separate = false;
    if (nvcc_flag(a, separate)) {
      has_std = has_std || starts_with(a, "-std=");
      out.push_back(a);
      if (separate && i + 1 < host_command.size()) {
        out.push_back(host_command[++i]);
      }
      continue;
    }
    out.push_back("-Xcompiler");
    out.push_back(a);
  }
  if (!has_std) {
    out.push_back("-std=c++17");
  }
  // Extended __host__ __device__ lambdas (the loop body); Eigen's constexpr helpers on the
  // device; Eigen's defaulted functions warn that their __host__ __device__ is ignored (20012).
  for (const char* a : {"--extended-lambda", "--expt-relaxed-constexpr", "-diag-suppress=20012"}) {
    out.emplace_back(a);
  }
  const std::string arch = config.cuda_arch.empty() ? "90" : config.cuda_arch;
  out.push_back("-gencode=arch=compute_" + arch + ",code=sm_" + arch);
  out.push_back("-gencode=arch=compute_" + arch + ",code=compute_" + arch); // PTX: newer GPUs
  out.insert(out.end(), {"-c", source, "-o", object});
  return out;
}

} // namespace rotor::driver
