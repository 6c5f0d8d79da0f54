#pragma once
/// \file
/// Running the host compiler (and other programs) from rotor-cc.

#include <string>
#include <vector>

namespace rotor::driver {

/// Runs `argv` (argv[0] found on PATH) and waits; its exit status (128 + signal when killed, 127
/// when it cannot be run). With `verbose`, prints the command first. With a `log` path, the
/// program's standard output and error go to that file.
int run_process(const std::vector<std::string>& argv, bool verbose, const std::string& log);

/// run_process without a log (the program's output is rotor-cc's).
int run_process(const std::vector<std::string>& argv, bool verbose);

} // namespace rotor::driver
