#pragma once
/// \file
/// The `--explain` reports of rotor-cc (contract §3): a human report, the JSON document and an
/// HTML page.

#include "rotor/frontend/Frontend.h"

#include <string>
#include <vector>

namespace rotor::frontend {

/// `{"loops": [...]}` with one object per loop in source order (contract §3 keys), pretty-printed.
std::string explain_json(const std::vector<LoopResult>& loops);

/// Per loop: where, the plan, each array's role and the reason in words, reductions, dependences.
std::string explain_text(const std::vector<LoopResult>& loops);

/// The text report's content as one self-contained HTML page (inline CSS, no scripts, no
/// external resources): a table of loops, then per loop a section with the plan, the loop's
/// source with the blocking lines marked, each array's role and why, and the suggestions.
std::string explain_html(const std::vector<LoopResult>& loops, const std::string& title);

} // namespace rotor::frontend
