#pragma once
/// \file
/// The examples' main(): the Session first, then the example's run(), each error one line.

#include <rotor/rotor.h>

#include <cstdio>
#include <exception>
#include <memory>

namespace rotor::examples {

/// Starts the Session (a bad --rotor-* flag or an unwritable --rotor-metrics/trace file: one
/// line `NAME: error: ...`, exit 2), then returns run(argc, argv) (an error: one line, exit 1).
inline int main_with_session(const char* name, int argc, char** argv, int (*run)(int, char**)) {
  std::unique_ptr<rotor::Session> session;
  try {
    session = std::make_unique<rotor::Session>(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", name, e.what());
    return 2;
  }
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", name, e.what());
    return 1;
  }
}

} // namespace rotor::examples
