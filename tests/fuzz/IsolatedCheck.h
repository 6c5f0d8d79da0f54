#pragma once
/// \file
/// The frontend oracle (FrontendOracle.h) run in a child process, so that an input on which the
/// parse crashes or hangs ends the child, not the campaign. Clang 14 itself crashes on some
/// mangled inputs (a stack overflow on `DistArray.std::int64_t, 1>` and `f<3>decltype((a, b);`,
/// 2026-11-27): a crash is Rotor's only when `clang++ -fsyntax-only` with the same arguments
/// does not crash on the same file (clang_crashes_too).

#include "FrontendOracle.h"

#include <string>

namespace rotor_fuzz {

struct IsolatedResult {
  enum class Outcome { checked, crashed, timed_out };
  Outcome outcome = Outcome::checked;
  int signal = 0;      ///< crashed: the signal that ended the child (0: it exited non-zero)
  OracleResult result; ///< checked: what check_source returned
};

/// check_source(code, name, options, seed, quiet) in a child process, given `timeout_seconds`.
IsolatedResult check_isolated(const std::string& code, const std::string& name,
                              const rotor::frontend::Options& options, std::uint64_t seed,
                              bool quiet, unsigned timeout_seconds);

/// True when `clangxx -fsyntax-only` with `options`' Clang arguments also dies of a signal on
/// `path` (Clang's crash, not Rotor's). False when it does not, or cannot be run.
bool clang_crashes_too(const std::string& clangxx, const std::string& path,
                       const rotor::frontend::Options& options, unsigned timeout_seconds);

} // namespace rotor_fuzz
