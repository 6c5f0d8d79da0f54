#pragma once
/// \file
/// A Clang precompiled header of `<rotor/rotor.h>` for the analysis parse. Parsing rotor.h with
/// Eigen and the standard library is most of rotor-cc's own time; a file whose first line of code
/// is `#include <rotor/rotor.h>` parses the same with the header loaded from a PCH (the PCH is
/// exactly that prefix). One PCH per set of parse arguments, built on first use in a cache
/// directory and validated by Clang on every use (all input headers, system ones included, by
/// size and mtime; the compiler version; the language options). Any problem: the caller parses
/// without it.

#include <string>
#include <vector>

namespace rotor::frontend {

/// True when the first code in `code` (after blanks and comments) is `#include <rotor/rotor.h>`,
/// so that prefixing the file with a PCH of that header changes nothing.
bool starts_with_rotor_include(const std::string& code);

/// The PCH for `parse_args` in `cache_dir`, built first when missing or when `rebuild`;
/// empty when it cannot be had (unwritable directory, parse error: the caller parses without).
std::string rotor_header_pch(const std::string& cache_dir,
                             const std::vector<std::string>& parse_args, bool rebuild);

/// The arguments that make a parse use `pch`.
std::vector<std::string> use_pch_args(const std::string& pch);

/// True when Clang's message says a PCH could not be used (stale, other compiler, other options).
bool is_pch_problem(const std::string& message);

} // namespace rotor::frontend
