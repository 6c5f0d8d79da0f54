#pragma once
// Shared by the loader fuzzers: the input goes to a file (loaders read paths); the loader must
// either succeed or throw rotor::InputError. Anything else (another exception, a crash, a
// sanitizer report) is a bug.

#include "rotor/distarray/Loaders.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

namespace rotor_fuzz {

struct Rating {
  std::int32_t user;
  std::int32_t item;
  float value;
};

struct Token {
  std::int32_t doc;
  std::int32_t word;
  std::int32_t topic;
};

/// Writes `data` to a per-process file and returns its path.
inline const std::string& write_input(const std::uint8_t* data, std::size_t size) {
  static const std::string path =
      std::string(::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") + "/rotor_fuzz_" +
      std::to_string(::getpid()) + ".in";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || (size > 0 && std::fwrite(data, 1, size, f) != size)) {
    std::abort();
  }
  std::fclose(f);
  // Keep each input's records small: a huge count must be an error, not an OOM.
  rotor::detail::set_loader_memory_limit(64u << 20);
  return path;
}

/// Runs `load`; InputError is an accepted outcome.
template <class Load> void expect_ok_or_input_error(Load&& load) {
  try {
    load();
  } catch (const rotor::InputError&) {
  }
}

} // namespace rotor_fuzz
