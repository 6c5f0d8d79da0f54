#pragma once
/// How the code rotor-cc writes at a loop names a loop-invariant variable that the loop's
/// subscripts use (a footprint's offset, a row stride, a row length): rotor-cc writes those
/// symbols into the run_loop call at the loop, so the name must find the same variable there as
/// it does where the subscript is (a helper may name a global that the loop's own function
/// shadows with a parameter of the same name).

#include <clang/AST/Decl.h>

#include <string>

namespace rotor::frontend {

/// The text that names `d` at a loop whose index or record variable lives in `loop_context`:
/// its plain name when unqualified lookup there finds `d`; else `::ns::name` for a
/// namespace-scope or static member variable and `this->name` for a member of the loop's object
/// (the loop is in one of its methods); empty when the loop cannot name `d` (a local or static
/// local of another function, or a local whose name the loop's function declares more than once).
/// Any declaration of the name inside the loop's function (a local, an enumerator, a
/// using-declaration, in any scope) rules the plain name out for an outside variable.
std::string loop_site_name(const clang::ValueDecl* d, const clang::DeclContext* loop_context);

} // namespace rotor::frontend
