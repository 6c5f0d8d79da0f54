#pragma once
/// \file
/// The annotated loop as lowering and rewriting see it: a range-for (over a Dataset, an
/// IndexSpace or a std::vector of records) or an index loop over a std::vector of records,
/// `for (std::size_t i = 0; i < v.size(); ++i) { ... v[i] ... }`.

#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>
#include <clang/AST/Stmt.h>
#include <clang/AST/StmtCXX.h>

#include <string>

namespace rotor::frontend {

struct LoopSite {
  const clang::Stmt* stmt = nullptr; ///< the `for` statement; nullptr: not an accepted loop
  const clang::Stmt* body = nullptr;
  clang::SourceLocation for_loc;
  /// A range-for: its loop variable. An index loop: the index `i`.
  const clang::VarDecl* var = nullptr;
  /// A range-for: the range expression. An index loop: the vector `v` of the bound `v.size()`.
  const clang::Expr* range = nullptr;
  bool index_loop = false;
  /// An index loop over an integer range `for (I i = 0; i < n; ++i)` (n an integer variable or
  /// member of `this`; `range` is n): no records; its keys are i and the values of read-only
  /// integer vectors at i (`user_of[i]`), computed by the inspector before the loop.
  bool int_range = false;
  /// A ragged nest (an integer-range loop whose body is exactly one loop
  /// `for (I n = 0; n < B; ++n)`, B a ragged bound of the outer index: ragged_bound): the inner
  /// loop. `body` is then that inner `for` statement (the analysis walks its header and body),
  /// the iterations are the pairs (i, n) and the executor runs the inner loop's body.
  const clang::ForStmt* inner = nullptr;
  const clang::VarDecl* inner_var = nullptr; ///< n
  const clang::Expr* inner_bound = nullptr;  ///< B, through casts
};

LoopSite range_for_site(const clang::CXXForRangeStmt& loop);

/// `for (I i = 0; i < v.size(); ++i)` (also `i++`, `i += 1`; I an integer type; v a variable, or a
/// member of the object the loop's method runs on, `this->v` or `v`;
/// whether v is a std::vector of records is the lowering's to check): its site. Otherwise a site
/// with `stmt` nullptr and `why` saying which part does not match.
LoopSite index_loop_site(const clang::ForStmt& loop, std::string& why);

/// True when `e` is `v[i]`: a subscript of the site's vector by its index (index loops only). For
/// a member vector, `this->v[i]` or `v[i]` (whether that `this` is the loop's object is the
/// lowering's to check: it refuses the member's uses in functions the loop calls).
/// `X[i]` (an operator[] call; `i` the variable `index`): X, else nullptr.
const clang::Expr* subscripted_by(const clang::Expr* e, const clang::VarDecl* index);
/// `A[i]` with A a variable or a member of `this`: A, else nullptr.
const clang::Expr* subscript_base_by(const clang::Expr* e, const clang::VarDecl* index);

/// A ragged bound of outer index `i` (through parentheses and casts): `A[i].size()` with A a
/// std::vector of std::vectors, or `A[i]` with A a std::vector of integers; A a variable or a
/// member of `this` (`ragged_bound_array` gives A); or `C[i]->f` / `C[i].f` through a pointer
/// chain C (chain_bound_field, PointerChains.h). Whether the loop leaves A unchanged is the
/// lowering's to check.
bool is_ragged_bound(const clang::Expr* bound, const clang::VarDecl* i);
const clang::Expr* ragged_bound_array(const clang::Expr* bound, const clang::VarDecl* i);

/// An integer-range bound that cannot change: an integer constant expression (`100`, a
/// `constexpr` or `const` integer initialised by a constant, a macro expanding to one).
bool is_constant_bound(const clang::Expr* n, const clang::ASTContext& ctx);

bool is_site_element(const LoopSite& site, const clang::Expr* e);

/// The field of an index loop over a member vector (`i < this->v.size()`); nullptr otherwise.
const clang::FieldDecl* site_member(const LoopSite& site);

} // namespace rotor::frontend
