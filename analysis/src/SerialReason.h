#pragma once
// Private: the words of a serial plan's reason, naming the array, the access and where it is.

#include "PlanSearch.h"

#include <string>
#include <vector>

namespace rotor::analysis::detail {

/// "file:line:col", "file:line", "line N" or "" (as much as is known).
std::string loc_string(const SourceLoc& loc);

/// "write W[user][:] at sgd_mf.cpp:46" (the access's text when it has one).
std::string access_words(const LoopModel& model, int access);

/// "a call with unknown effects 'log_progress()' at x.cpp:12".
std::string escape_words(const Escape& escape);

/// The dependence a serial plan blames: the first one that is not exactly zero in any field
/// (nothing can separate it), else the first one. Precondition: `deps` is not empty.
const SearchDependence& blocking_dependence(const std::vector<SearchDependence>& deps);

/// Why `dep` stops every schedule: both accesses, the vector, and an unknown subscript if any.
std::string dependence_reason(const LoopModel& model, const SearchDependence& dep);

} // namespace rotor::analysis::detail
