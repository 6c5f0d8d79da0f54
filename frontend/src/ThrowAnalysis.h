#pragma once
/// \file
/// Whether a loop body may throw. The runtime keeps what a step may change before it runs only
/// when it may (codegen::LoopSpec::may_throw), so an exception leaves the state of the last
/// completed step; a body proved not to throw pays nothing.

#include <clang/AST/Stmt.h>

namespace rotor::frontend {

/// True when running `body` may throw: it, or a function it calls (followed into every visible
/// definition: lambdas, constructors, operators, the user's helpers), contains a throw
/// expression, a throwing `new`, a `dynamic_cast` to a reference or a `typeid` of a polymorphic
/// object, or calls a function whose body is not visible and that is not known not to throw.
/// Known not to throw: a type that promises it (`noexcept`, `throw()`, glibc's `__THROW`),
/// builtins, trivial members, the known-pure functions (KnownCallees.h), element accessors of
/// standard containers other than `at`, Rotor's accessors (in a ROTOR_CHECK_ACCESS build a stray
/// access throws a logic_error that reports a Rotor bug: the step is not undone for it), and
/// Eigen's functions that allocate nothing (no
/// dynamic-size Matrix or Array made or resized: Eigen throws only std::bad_alloc). Calls
/// through pointers and virtual calls count as unseen code: deny by default.
bool may_throw(const clang::Stmt* body);

} // namespace rotor::frontend
