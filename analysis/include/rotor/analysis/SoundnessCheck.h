#pragma once
/// \file
/// A brute-force soundness checker for plans (library rotor_analysis_check, not rotor_analysis).
///
/// It makes small concrete instances of a loop model (records with random small keys or every
/// point of a small grid; random values for named offsets and unknown subscripts), lays out the
/// blocks and steps the plan would run, and checks the plan's claims directly on the elements
/// each iteration touches:
/// - no two iterations that run concurrently (same step, different blocks) touch one element of
///   a non-buffered array where one of them writes;
/// - ordered loops: every such conflicting pair runs in ascending key order;
/// - a partitioned/rotating array (one_d, rotation) is only shared by iterations of one block of
///   its field; a local array is never shared at all;
/// - every key-indexed access stays inside its array's footprint.
///
/// \code
///   std::mt19937_64 rng(1);
///   LoopModel m = random_loop_model(rng);
///   CheckResult r = check_plan(m, plan_loop(m), rng());
///   if (!r.ok) std::cerr << r.violation << "\n" << loop_model_to_text(m);
/// \endcode

#include "rotor/analysis/LoopModel.h"
#include "rotor/analysis/Plan.h"

#include <cstdint>
#include <random>
#include <string>

namespace rotor::analysis {

struct CheckOptions {
  int instances = 3;    ///< random instances per call
  int max_records = 16; ///< Dataset: records per instance (1..max_records)
  int max_key = 6;      ///< Dataset: key values in [0, max_key)
  int max_workers = 4;  ///< workers (blocks per partition key) in [2, max_workers]
};

struct CheckResult {
  bool ok = true;
  std::string violation; ///< the first broken claim, with the iterations and keys involved
};

/// Checks `plan`'s claims for `model` on random instances drawn from `seed`.
CheckResult check_plan(const LoopModel& model, const Plan& plan, std::uint64_t seed,
                       const CheckOptions& options = {});

/// A random small loop model (1-3 key fields, 1-3 arrays of rank 1-2, 1-5 accesses with every
/// kind of subscript, sometimes ordered, buffered arrays, an escape) for the soundness bench.
LoopModel random_loop_model(std::mt19937_64& rng);

/// A random stencil: an IndexSpace over 2 fields, 1-2 arrays indexed `[i0+x][i1+y]` with x, y in
/// -1..1, sometimes ordered: the loops where wavefront and unimodular plans arise.
LoopModel random_stencil_model(std::mt19937_64& rng);

} // namespace rotor::analysis
