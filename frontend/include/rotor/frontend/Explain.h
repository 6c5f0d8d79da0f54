#pragma once
/// \file
/// The `--explain` reports of rotor-cc (contract §3): a human report and the JSON document.

#include "rotor/frontend/Frontend.h"

#include <string>
#include <vector>

namespace rotor::frontend {

/// `{"loops": [...]}` with one object per loop in source order (contract §3 keys), pretty-printed.
std::string explain_json(const std::vector<LoopResult>& loops);

/// Per loop: where, the plan, each array's role and the reason in words, reductions, dependences.
std::string explain_text(const std::vector<LoopResult>& loops);

} // namespace rotor::frontend
