#pragma once
/// \file
/// Reads `#pragma rotor parallel_for [ordered] [buffered(A, ...)] [private(x, ...)]
/// [device(cpu|gpu)]`.
///
/// Clang 14 keeps no attribute on statements for unknown pragmas, so the handler records each
/// pragma with its source location; Frontend.cpp attaches it to the range-for that follows.

#include <clang/Lex/Pragma.h>
#include <clang/Lex/Preprocessor.h>

#include <string>
#include <vector>

namespace rotor::frontend {

/// One `#pragma rotor ...` line as written.
struct RotorPragma {
  clang::SourceLocation hash; ///< the `#` (or `_Pragma`)
  clang::SourceLocation last; ///< the last token of the pragma line
  bool ordered = false;
  std::vector<std::string> buffered;
  std::vector<std::string> privates; ///< `private(x, ...)`: per-worker copies
  bool gpu = false;
  std::string error; ///< non-empty: the pragma is malformed (message for the user)
  clang::SourceLocation error_loc;
};

/// Registered for the `rotor` namespace; appends every pragma it reads to `out`.
class RotorPragmaHandler : public clang::PragmaHandler {
public:
  explicit RotorPragmaHandler(std::vector<RotorPragma>& out)
      : clang::PragmaHandler("rotor"), out_(out) {}
  void HandlePragma(clang::Preprocessor& pp, clang::PragmaIntroducer introducer,
                    clang::Token& first) override;

private:
  std::vector<RotorPragma>& out_;
};

} // namespace rotor::frontend
