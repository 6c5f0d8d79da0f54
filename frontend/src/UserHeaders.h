#pragma once
/// \file
/// Whether a source file's own headers (not the system's) hold a `#pragma rotor`: rotor-cc skips
/// the Clang parse of a file that mentions no Rotor pragma, but a pragma in one of its headers
/// must still get its warning (rotor-cc rewrites only the file it compiles; Frontend.cpp).
///
/// A textual walk of `#include "..."` (the including file's directory, then -iquote and -I
/// directories) and `#include <...>` found in -I directories, each header read once. Includes
/// through macros, and headers only under -isystem, are not followed.

#include <string>
#include <vector>

namespace rotor::frontend {

/// True when `pragma` followed (after blanks, `(` or `"`) by `rotor` appears in `code`.
bool mentions_rotor_pragma(const std::string& code);

/// True when a user header that `code` (the file at `path`, parsed with `args`) includes, directly
/// or through other user headers, mentions a Rotor pragma.
bool user_headers_mention_rotor_pragma(const std::string& path, const std::string& code,
                                       const std::vector<std::string>& args);

} // namespace rotor::frontend
