/// \file
/// Read-only arithmetic locals the loop's body lambda captures by value (issue 19: a 1-worker run
/// as fast as the serial loop). Through a `[&]` capture the body reaches `lr`, `reg`, `mean` by
/// pointer; after each vector store (GCC's vector types may alias anything) it reloads them. A
/// copy in the closure stays in registers, as in the serial loop. Deny by default: a variable is
/// copied only when the rule below proves the copy always holds the value the serial loop reads.
///
/// The rule: `v` is a local of the function that holds the loop (a variable with automatic
/// storage or a parameter passed by value, declared before the loop), of arithmetic or enum
/// type, not volatile, and the function is no template or member of one. Every mention of `v`
/// in the function is
///   - in the loop (lambdas in it included): a read of its value (lvalue-to-rvalue), a use
///     that is no odr-use (a constant), or, where the plan is not serial (the analysis then saw
///     every write of the body and its helpers), an argument for a `const T&` parameter of a
///     call that returns neither a reference nor a pointer (`lr * h`, Eigen's
///     `operator*(const Scalar&, ...)`); and at least one of them a read or an argument;
///   - outside the loop and outside every lambda: a read, the left side of an assignment or
///     compound assignment, or the operand of `++`/`--`.
/// Never an address, another reference binding, a member call or a mention in a lambda outside
/// the loop: nothing else can reach `v`, so nothing changes it while the loop runs, and a
/// reference to the copy lives no longer than the call it is passed to.

#pragma once

#include "LoopSite.h"

#include <set>
#include <string>
#include <vector>

namespace clang {
class VarDecl;
} // namespace clang

namespace rotor::frontend {

/// The variables of `loop`'s function the rule above lets the body lambda capture by value, in
/// the order the body first names them; none named in `bound` (names the rewriter binds inside
/// the lambda: parameters, privates, locals of its prologue). `parallel_plan`: the loop's plan
/// is not serial.
std::vector<const clang::VarDecl*>
copied_scalars(const LoopSite& loop, const std::set<std::string>& bound, bool parallel_plan);

} // namespace rotor::frontend
