// Non-root ranks quiet from the process's start (QuietRanks.h). rotor-cc defines the weak symbol
// `rotor_cc_built_program` in every file it rewrites; a constructor of this library then reads
// the launcher's rank (Open MPI's OMPI_COMM_WORLD_RANK, PMIx's PMIX_RANK, PMI's PMI_RANK) before
// `main` runs, and quiets a rank other than 0 unless every rank's output is asked for
// (`--rotor-all-output` on the command line, or ROTOR_ALL_OUTPUT, with the session's meaning).
// Programs not built by rotor-cc (the serial builds, Rotor's own tests) do not define the symbol
// and start quiet only with their session, as before.
#include "QuietRanks.h"

#include "FileWritesOnce.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

extern "C" {
__attribute__((weak)) extern const int rotor_cc_built_program;
}

namespace rotor::detail {

void quiet_this_rank() {
  std::fflush(stdout);
  if (!std::freopen("/dev/null", "w", stdout)) {
    std::fprintf(stderr, "rotor: cannot discard stdout on a rank other than 0\n");
  }
  shadow_file_writes(true); // the program's files are written by rank 0 once
}

namespace {

/// This process's rank as the launcher set it, or -1 outside a launcher.
int launcher_rank() {
  for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}) {
    if (const char* v = std::getenv(var); v != nullptr && *v != '\0') {
      return std::atoi(v);
    }
  }
  return -1;
}

/// A switch's value as the session reads it: absent or "1"/"true" on, "0"/"false" off.
bool switch_on(const std::string& value) {
  return value != "0" && value != "false";
}

/// Does the command line or the environment ask for every rank's output?
bool all_output_asked() {
  std::ifstream cmdline("/proc/self/cmdline", std::ios::binary);
  const std::string args((std::istreambuf_iterator<char>(cmdline)),
                         std::istreambuf_iterator<char>());
  const std::string flag = "--rotor-all-output";
  for (std::size_t at = 0; at < args.size();) {
    const std::string arg = args.c_str() + at; // NUL-separated
    at += arg.size() + 1;
    if (arg == flag) {
      return true;
    }
    if (arg.compare(0, flag.size() + 1, flag + "=") == 0) {
      return switch_on(arg.substr(flag.size() + 1));
    }
  }
  const char* env = std::getenv("ROTOR_ALL_OUTPUT");
  return env != nullptr && *env != '\0' && switch_on(env);
}

__attribute__((constructor)) void quiet_from_the_start() {
  if (&rotor_cc_built_program != nullptr && launcher_rank() > 0 && !all_output_asked()) {
    quiet_this_rank();
  }
}

} // namespace

} // namespace rotor::detail
