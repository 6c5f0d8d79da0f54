#include "DriverConfig.h"

#include <cstdlib>
#include <fstream>
#include <unistd.h>

namespace rotor::driver {
namespace {

std::string self_path(const std::string& argv0) {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n > 0) {
    return std::string(buf, static_cast<std::size_t>(n));
  }
  return argv0;
}

std::string dir_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

bool read_config(const std::string& path, const std::string& prefix, DriverConfig& config,
                 std::string& error) {
  std::ifstream in(path);
  if (!in) {
    return false;
  }
  config.path = path;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') {
      continue;
    }
    for (std::size_t at; (at = line.find("@PREFIX@")) != std::string::npos;) {
      line.replace(at, 8, prefix);
    }
    const auto space = line.find(' ');
    const std::string key = line.substr(0, space);
    const std::string value = space == std::string::npos ? "" : line.substr(space + 1);
    if (value.empty()) {
      continue;
    }
    if (key == "cxx") {
      config.cxx = value;
    } else if (key == "compile") {
      config.compile.push_back(value);
    } else if (key == "link") {
      config.link.push_back(value);
    } else if (key == "isa_level") {
      config.isa_levels.push_back(value);
    } else if (key == "isa_launcher") {
      config.isa_launcher = value;
    } else if (key == "nvcc") {
      config.nvcc = value;
    } else if (key == "cuda_arch") {
      config.cuda_arch = value;
    } else if (key == "cuda_link") {
      config.cuda_link.push_back(value);
    } else {
      error = path + ":" + std::to_string(number) + ": unknown directive '" + key + "'";
      return false;
    }
  }
  return true;
}

} // namespace

bool load_config(const std::string& argv0, DriverConfig& config, std::string& error) {
  const std::string bin = dir_of(self_path(argv0));
  const std::string prefix = dir_of(bin);
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("ROTOR_CC_CONFIG"); env != nullptr && *env != '\0') {
    candidates.push_back(env);
  }
  candidates.push_back(bin + "/rotor-cc.cfg");
  candidates.push_back(prefix + "/lib/rotor/rotor-cc.cfg");
  candidates.push_back(prefix + "/lib64/rotor/rotor-cc.cfg");
  for (const std::string& c : candidates) {
    if (read_config(c, prefix, config, error)) {
      return true;
    }
    if (!error.empty()) {
      return false;
    }
  }
  error = "cannot find rotor-cc.cfg (looked in " + bin + " and " + prefix +
          "/lib/rotor); set ROTOR_CC_CONFIG";
  return false;
}

} // namespace rotor::driver
