#pragma once
/// \file
/// rotor-cc: a compiler wrapper used like mpicxx (contract §3).
///
///   rotor-cc [--explain[=json|=text]] [--emit-source=FILE] [-v] <compiler arguments>
///   rotor-cc <host compiler> <compiler arguments>   (as a CMake compiler launcher)
///
/// Exit codes: 0 success; 1 an error in the input (syntax, misplaced pragma, missing file);
/// 2 bad usage or a broken installation; otherwise the host compiler's exit code.

#include <string>
#include <vector>

namespace rotor::driver {

int run_driver(const std::vector<std::string>& args, const std::string& argv0);

} // namespace rotor::driver
