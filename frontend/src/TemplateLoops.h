#pragma once
/// \file
/// Annotated loops inside templates. The template's own body (the pattern) has dependent types,
/// so Rotor analyses the loop in each instantiation this file makes instead, and rewrites the
/// pattern once when every instantiation gets the same run_loop call (Frontend.cpp).

#include "LoopSite.h"

#include <clang/AST/ASTContext.h>

#include <map>
#include <string>
#include <vector>

namespace rotor::frontend {

/// The loop is in a template's pattern (a function template, a member of a class template, or
/// a generic lambda): its body may have dependent types.
bool in_template_pattern(const LoopSite& loop);

/// The loops (range-fors and index loops, as LoopSites) of instantiated function bodies, by the
/// raw encoding of their `for` location (the pattern's: every instantiation of a loop shares it),
/// in the order Clang made the instantiations. Main-file loops only.
std::map<unsigned, std::vector<LoopSite>> instantiated_loops(clang::ASTContext& ctx);

/// "step<float>": the instantiation that holds `loop`, as Clang names it in diagnostics.
std::string instantiation_name(const LoopSite& loop);

} // namespace rotor::frontend
