// The ISA launcher: the program a user runs is this small executable; it picks the fastest build
// of the real program that the CPU can run and replaces itself with it (execv: same process id,
// arguments and environment, so mpirun, Slurm and signals see no difference).
//
//   <dir>/sgd_mf                 this launcher
//   <dir>/sgd_mf.x86-64          the real program, baseline x86-64 (runs anywhere)
//   <dir>/sgd_mf.x86-64-v3       the same source compiled with -march=x86-64-v3 (AVX2, FMA)
//   <dir>/sgd_mf.x86-64-v4       ... with -march=x86-64-v4 (AVX-512)
//
// Why whole programs and not per-function clones: docs/design/isa-variants.md.
// ROTOR_ISA=x86-64|x86-64-v3|x86-64-v4 forces one build (an error if the CPU lacks it or the file
// is missing); ROTOR_ISA_VERBOSE=1 prints the choice on stderr.

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

namespace {

struct Level {
  const char* name;
  bool (*supported)();
};

bool supports_v3() {
#if defined(__GNUC__) && !defined(__clang__)
  return __builtin_cpu_supports("x86-64-v3");
#else
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
         __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
#endif
}

bool supports_v4() {
#if defined(__GNUC__) && !defined(__clang__)
  return __builtin_cpu_supports("x86-64-v4");
#else
  return supports_v3() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vl");
#endif
}

bool supports_baseline() {
  return true;
}

/// Fastest first: the launcher takes the first level the CPU supports whose build exists.
const Level k_levels[] = {
    {"x86-64-v4", supports_v4}, {"x86-64-v3", supports_v3}, {"x86-64", supports_baseline}};

std::string own_path() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) {
    std::fprintf(stderr, "rotor isa launcher: cannot read /proc/self/exe: %s\n",
                 std::strerror(errno));
    std::exit(127);
  }
  buf[n] = '\0';
  return buf;
}

bool executable(const std::string& path) {
  return access(path.c_str(), X_OK) == 0;
}

/// The build to run: ROTOR_ISA's if set (checked), else the fastest supported one present.
std::string choose(const std::string& self) {
  const char* forced = std::getenv("ROTOR_ISA");
  if (forced != nullptr && *forced != '\0') {
    for (const Level& level : k_levels) {
      if (std::strcmp(forced, level.name) != 0) {
        continue;
      }
      const std::string path = self + "." + level.name;
      if (!level.supported()) {
        std::fprintf(stderr, "rotor isa launcher: ROTOR_ISA=%s: this CPU does not support %s\n",
                     forced, level.name);
        std::exit(127);
      }
      if (!executable(path)) {
        std::fprintf(stderr, "rotor isa launcher: ROTOR_ISA=%s: no executable '%s'\n", forced,
                     path.c_str());
        std::exit(127);
      }
      return path;
    }
    std::fprintf(stderr,
                 "rotor isa launcher: ROTOR_ISA=%s: expected x86-64, x86-64-v3 or x86-64-v4\n",
                 forced);
    std::exit(127);
  }
  for (const Level& level : k_levels) {
    const std::string path = self + "." + level.name;
    if (level.supported() && executable(path)) {
      return path;
    }
  }
  std::fprintf(stderr, "rotor isa launcher: no build of this program next to it ('%s.x86-64')\n",
               self.c_str());
  std::exit(127);
}

} // namespace

int main(int argc, char** argv) {
  (void)argc;
  __builtin_cpu_init();
  const std::string target = choose(own_path());
  const char* verbose = std::getenv("ROTOR_ISA_VERBOSE");
  if (verbose != nullptr && std::strcmp(verbose, "0") != 0) {
    std::fprintf(stderr, "rotor isa launcher: running %s\n", target.c_str());
  }
  execv(target.c_str(), argv);
  std::fprintf(stderr, "rotor isa launcher: cannot run '%s': %s\n", target.c_str(),
               std::strerror(errno));
  return 127;
}
