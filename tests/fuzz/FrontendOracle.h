#pragma once
/// \file
/// Runs one (mutated) source through the frontend in-process, the way `rotor-cc --explain=json`
/// and the rewrite do, and checks what came back:
/// - the frontend returns (no crash, no exception) and the JSON and text reports can be written;
/// - every loop it gives a parallel plan has a valid model (validate_loop_model), the plan is what
///   analysis::plan_loop gives for that model, and the brute-force soundness checker
///   (rotor_analysis_check) finds no broken claim on random instances.
/// The frontend may refuse any input (errors, serial plans); it may never plan unsoundly.

#include "rotor/frontend/Frontend.h"

#include <cstdint>
#include <string>
#include <vector>

namespace rotor_fuzz {

struct OracleResult {
  bool parsed = false;    ///< the frontend accepted the file (FileResult::ok)
  int loops = 0;          ///< annotated loops it planned
  int parallel_loops = 0; ///< of those, with a non-serial plan
  /// of those, data_parallel: not held to a serial order (buffered arrays merge per-worker
  /// changes), so the execution oracle cannot ask for the serial replay's hash
  int data_parallel_loops = 0;
  std::vector<std::string> failures; ///< broken checks (each a bug to fix)
};

/// The Clang arguments of rotor-cc's configuration file (its `compile` lines) plus `extra`.
rotor::frontend::Options options_from_config(const std::string& config_path,
                                             const std::vector<std::string>& extra);

/// Processes `code` (named `name`, so relative includes resolve next to it) and checks it.
/// Clang's own diagnostics go to stderr unless `quiet` (then they are dropped).
OracleResult check_source(const std::string& code, const std::string& name,
                          const rotor::frontend::Options& options, std::uint64_t seed, bool quiet);

} // namespace rotor_fuzz
