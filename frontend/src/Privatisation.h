#pragma once
/// \file
/// Per-worker copies of variables declared outside a loop (issue 16, item 3): scratch buffers
/// that every iteration writes whole before reading them (found here, deny by default), and the
/// variables the pragma names in `private(...)`. The lowering treats both as loop-local objects
/// where the loop's text names them; the rewriter binds each name to the worker's copy
/// (rotor/runtime/Private.h).

#include "LoopSite.h"
#include <clang/AST/ASTContext.h>

#include <clang/AST/StmtCXX.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace rotor::frontend {

struct PrivateVariable {
  const clang::VarDecl* var = nullptr;
  bool from_clause = false;
  clang::SourceLocation first_use; ///< its first mention in the loop body
};

/// The scratch buffers of `loop`: a local variable of the enclosing function (not static, not a
/// reference, named by no code of that function outside `loop`, so what the loop leaves in it
/// cannot be observed), of type `T[N]`, `std::array<T, N>` or `std::vector<T>` with T arithmetic,
/// such that the first top-level statement of the body that names it is
///
///   for (int k = 0; k < BOUND; ++k) { ...; v[k] = expr; ...; }
///
/// with `v[k] = expr` an unconditional statement of that loop's body, nothing before it naming
/// `v`, `expr` not naming `v`, later statements of that loop naming `v` only as `v[k]`, no
/// `break`/`continue`/`return`/`goto` in it, `k` only read, and BOUND covering the whole buffer
/// (`v.size()`; for arrays a constant equal to N; for a vector declared `std::vector<T> v(K)`
/// the same const `K`). Every later
/// mention of `v` in the body must be `v[...]` or `v.size()`. Anything else is not a scratch
/// buffer (the loop keeps today's diagnostics).
std::vector<PrivateVariable> find_scratch_buffers(clang::ASTContext& ctx, const LoopSite& loop);

/// A per-iteration scalar temporary (ScratchScalars.cpp): `defs` are the loop's writes to it
/// when there is exactly one (its defining assignment, which then acts as a subscript alias like
/// `const int u = r.user;`), empty otherwise.
struct ScratchScalar {
  const clang::VarDecl* var = nullptr;
  clang::SourceLocation first_use;
  const clang::BinaryOperator* single_def = nullptr;
};

/// The scalar temporaries of `loop`: a local variable of the enclosing function (arithmetic or
/// enum type, not static, not volatile, not a reference or parameter) that no code of that
/// function outside `loop` names, and that every iteration assigns before any read on every path
/// (ScratchScalars.cpp states the rule). Anything else is not one (deny by default).
std::vector<ScratchScalar> find_scratch_scalars(const LoopSite& loop,
                                                const clang::SourceManager& sm);

/// Calls `fn` on every statement under `s` (lambda bodies included), `s` first.
void visit_statements(const clang::Stmt* s, const std::function<void(const clang::Stmt*)>& fn);

/// Does a statement under `s` refer to `v`?
bool names_variable(const clang::Stmt* s, const clang::VarDecl* v);

/// Is `loop` the only code of `v`'s function that names `v` (so nothing before it resized it,
/// took its address, or reads what the loop leaves in it)?
bool named_only_in(const clang::VarDecl* v, const LoopSite& loop, const clang::SourceManager& sm);

/// The outside variables `loop`'s body names, in order of first mention.
std::vector<std::pair<const clang::VarDecl*, clang::SourceLocation>>
outside_variables(const LoopSite& loop, const clang::SourceManager& sm);

/// The variables declared outside `loop` that its body names, by name (for `private(...)`).
std::vector<const clang::VarDecl*> outside_variables_named(const LoopSite& loop,
                                                           const std::string& name,
                                                           const clang::SourceManager& sm);

} // namespace rotor::frontend
