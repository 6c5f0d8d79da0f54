#pragma once
/// \file
/// The advice of the --explain reports, beside the planner it calls: the plan in one sentence,
/// each array's role and why, and for a serial loop what blocks it and what to change (each
/// suggestion re-planned with its change applied). rotor-cc's reports only render these.

#include "rotor/analysis/LoopModel.h"
#include "rotor/analysis/Plan.h"

#include <string>
#include <vector>

namespace rotor::analysis {

/// "rotation: records are split into blocks by user; ..." (one sentence, no newline).
std::string plan_sentence(const LoopModel& model, const Plan& plan);

/// "H rotates by item: its rows are indexed by item; two records with the same item conflict, ..."
std::string array_sentence(const LoopModel& model, const Plan& plan, const ArrayPlan& array);

/// What keeps a serial loop on one worker: an escape or the blocking access, with its place.
struct Blocker {
  std::string what;
  SourceLoc loc;
};

/// Every escape (in source order), else the blocking access of the plan's reason. Empty for a
/// parallel plan.
std::vector<Blocker> blockers(const LoopModel& model, const Plan& plan);

/// For a serial plan, what the user can change, most direct first: the fix for each escape, a
/// rewrite for each unknown subscript of a conflicting write, and the smallest `buffered(...)`
/// list that lets the loop run in parallel (found by planning the loop again with it), each
/// with the plan it would get. Empty for a parallel plan.
std::vector<std::string> suggestions(const LoopModel& model, const Plan& plan);

} // namespace rotor::analysis
