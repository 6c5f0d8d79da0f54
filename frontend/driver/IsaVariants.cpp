#include "IsaVariants.h"

#include <fstream>
#include <iostream>
#include <sys/stat.h>

namespace rotor::driver {
namespace {

bool starts_with(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

bool chooses_isa(const std::string& a) {
  return starts_with(a, "-march=") || starts_with(a, "-mcpu=") || starts_with(a, "-mavx") ||
         starts_with(a, "-msse") || starts_with(a, "-mfma") || starts_with(a, "-mno-avx") ||
         starts_with(a, "-mno-sse");
}

/// `compile` with the argument after its `-o` replaced by `output`.
std::vector<std::string> with_output(std::vector<std::string> compile, const std::string& output) {
  for (std::size_t i = 0; i + 1 < compile.size(); ++i) {
    if (compile[i] == "-o") {
      compile[i + 1] = output;
    }
  }
  return compile;
}

bool copy_executable(const std::string& from, const std::string& to) {
  std::ifstream in(from, std::ios::binary);
  if (!in) {
    return false;
  }
  const std::string tmp = to + ".rotor-tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << in.rdbuf();
    if (!out) {
      return false;
    }
  }
  return chmod(tmp.c_str(), 0755) == 0 && std::rename(tmp.c_str(), to.c_str()) == 0;
}

} // namespace

bool wants_isa_variants(const std::vector<std::string>& args, const DriverConfig& config) {
  if (config.isa_levels.empty() || config.isa_launcher.empty()) {
    return false;
  }
  bool named_output = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-shared" || a == "-r" || chooses_isa(a)) {
      return false;
    }
    named_output = named_output || (a == "-o" && i + 1 < args.size());
  }
  return named_output;
}

int link_isa_variants(const std::vector<std::string>& compile, const std::string& output,
                      const DriverConfig& config, bool verbose,
                      int (*run)(const std::vector<std::string>&, bool)) {
  if (const int rc = run(with_output(compile, output + ".x86-64"), verbose); rc != 0) {
    return rc;
  }
  bool contract_given = false;
  for (const std::string& a : compile) {
    contract_given = contract_given || starts_with(a, "-ffp-contract=");
  }
  for (const std::string& level : config.isa_levels) {
    std::vector<std::string> variant = with_output(compile, output + "." + level);
    variant.push_back("-march=" + level);
    // No FMA contraction unless the command asks for it: GCC fuses a * b + c depending on the
    // code around it, so a loop body in Rotor's record loop and the same body in a serial build
    // could round differently (bitwise replays; docs/design/isa-variants.md).
    if (!contract_given) {
      variant.push_back("-ffp-contract=off");
    }
    if (const int rc = run(variant, verbose); rc != 0) {
      return rc;
    }
  }
  if (!copy_executable(config.isa_launcher, output)) {
    std::cerr << "rotor-cc: error: cannot copy the ISA launcher '" << config.isa_launcher
              << "' to '" << output << "'\n";
    return 2;
  }
  return 0;
}

} // namespace rotor::driver
