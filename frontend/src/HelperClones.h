// Helper clones (docs/design/helper-clones.md): a member function the loop body calls, which uses
// a buffered container by its own name, is copied into the generated body lambda as a local
// lambda of the same name, after the locals that bind the container's name to the worker's
// buffer. The body's unchanged call then reaches the clone, and the clone's unqualified name of
// the container reaches the buffer. These functions decide whether the copy means what the helper
// means (deny by default) and write its text. Not installed; only frontend/src includes it.
#pragma once

#include "Lowering.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/Expr.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace rotor::frontend {

/// Why `helper`, reached by `call` from the body of a loop in member function `enclosing`
/// (nullptr: the loop is not in a member function), cannot be cloned into the loop, as
/// "'sampling' (line 12) is virtual"; nothing when its shape allows a clone. Judges the helper
/// and the call alone; clone_name_refusal judges the names the clone's text looks up.
std::optional<std::string> clone_shape_refusal(clang::ASTContext& ctx,
                                               const clang::FunctionDecl* helper,
                                               const clang::Expr* call,
                                               const clang::CXXMethodDecl* enclosing);

/// Why the clone of `helper` would look up a name differently where the loop is: a name the
/// helper's text uses from outside itself that `names_at_loop` holds (the locals and parameters
/// around the loop, the names the rewriter binds there, the other clones), a macro defined in
/// the program, a preprocessor directive in the helper, or a namespace-scope declaration of one
/// of its names between the helper and the loop. `loop_function` holds the loop; `shadows` are
/// the names the clone is meant to reach at the loop (the buffered containers).
std::optional<std::string> clone_name_refusal(clang::ASTContext& ctx,
                                              const clang::FunctionDecl* helper,
                                              const clang::FunctionDecl* loop_function,
                                              const std::set<std::string>& names_at_loop,
                                              const std::set<std::string>& shadows);

/// Every name declared in `fn` (its parameters, locals, local types, lambdas' parameters) and
/// "using" when it holds a using-declaration, using-directive or namespace alias.
std::set<std::string> names_declared_in(const clang::FunctionDecl* fn);

/// A variable or member named in an unevaluated operand (`sizeof(e)`, `alignof(e)`, `typeid(e)`,
/// `noexcept(e)`, `decltype(e)`): its type or size is taken, not its value.
struct UnevaluatedName {
  std::string name;
  clang::SourceLocation at;
};
/// The unevaluated names of a statement (a loop body) or a declaration (a helper), in order.
std::vector<UnevaluatedName> unevaluated_names(const clang::Stmt* s);
std::vector<UnevaluatedName> unevaluated_names(const clang::Decl* d);

/// The clone's text: ` auto NAME = [&](PARAMS) -> RET {`, a #line to the helper's body, the body
/// and `};`, all in the user's file `file_name`. The body gets the rewrites the loop's lowering
/// asks for inside it, as the helper itself gets them: its libc calls (`loop.libc_calls`) and its
/// checked columns (`loop.column_checks`; the clone is what runs in the loop, so a clone without
/// them would reach past the staged rows unchecked). A column of a table in `staged_views` (model
/// name to the name of its staged view, in scope in the body lambda) is checked against the view.
std::string clone_text(const clang::SourceManager& sm, const clang::LangOptions& lo,
                       const clang::FunctionDecl* helper, const LoweredLoop& loop,
                       const std::string& quoted_file,
                       const std::map<std::string, std::string>& staged_views);

} // namespace rotor::frontend
