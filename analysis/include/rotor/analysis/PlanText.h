#pragma once
/// \file
/// Plans in words, for `rotor-deps`, `rotor-cc --explain` and test expectations.
///
/// \code
///   plan_summary(model, plan)
///   // "rotation over (user, item); W partitioned by user, H rotating by item"
/// \endcode

#include "rotor/analysis/LoopModel.h"
#include "rotor/analysis/Plan.h"

#include <string>

namespace rotor::analysis {

/// One line: the kind, its fields (and matrix), then each array that is not replicated with its
/// role; a serial plan gives its reason.
std::string plan_summary(const LoopModel& model, const Plan& plan);

/// The full report: the loop, every dependence vector with its two accesses, the plan, every
/// array with role, footprint and reason, the reductions and the notes. Ends with a newline.
std::string plan_to_text(const LoopModel& model, const Plan& plan);

/// `[user+0..1, :]`: a footprint in words.
std::string footprint_text(const LoopModel& model, const std::vector<DimFootprint>& dims);

} // namespace rotor::analysis
