#pragma once
// Private: what each array does under a candidate plan, and the footprint of a block per array.

#include "PlanSearch.h"

#include <optional>
#include <string>
#include <vector>

namespace rotor::analysis::detail {

/// Per dimension, what a block of iterations touches of `array` (over all its accesses).
std::vector<DimFootprint> footprint(const LoopModel& model, const std::string& array);

/// Roles of every array (LoopModel::arrays order) under `c`, or nullopt with `why_not` set when a
/// written array cannot follow any partition key of `c`. `deps` are the non-buffered dependences.
/// `c` == nullptr: the plan partitions nothing (independent, data_parallel, serial).
std::optional<std::vector<ArrayPlan>> assign_roles(const LoopModel& model, const Candidate* c,
                                                   const std::vector<SearchDependence>& deps,
                                                   std::string* why_not);

} // namespace rotor::analysis::detail
