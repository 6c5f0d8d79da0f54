/// \file
/// Scalar temporaries declared before a loop (issue 16, item 3; funk-svd's `int u_id, i_id;
/// double error;` assigned at the top of every iteration): each worker gets its own copy
/// (Privatisation.h). Deny by default: a variable is one only when the rule below proves that no
/// iteration reads a value an earlier iteration left in it, and no code outside the loop can see
/// what the loop leaves in it.
///
/// The rule, on the statements of the body (and, recursively, of a block, a loop body or an `if`
/// branch): the first statement that names `v` must
///   - be `v = e;` with `e` not naming `v` (v is *defined*: the later statements of the same list
///     may use it), or
///   - be a block whose statements meet the rule (a block runs once: its status is its last
///     statement's), or
///   - be a `for`, range-for, `while` or `do` loop whose header does not name `v` and whose body
///     meets the rule, or an `if` whose condition does not name `v` and whose branches each meet
///     the rule or do not name `v` (v is *contained*: no later statement of the list may name it,
///     since a loop may run zero times and a branch may not be taken).
/// Every mention of `v` in the loop is a read of its value, the left side of an assignment or
/// compound assignment, or the operand of `++`/`--`: never an address, a reference binding or an
/// unevaluated operand. The body may not hold a `goto` or a label (a jump could skip the
/// definition). A jump out (`break`, `continue`, `return`) only skips statements that follow it.

#include "Privatisation.h"

#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/ParentMap.h>
#include <clang/AST/StmtCXX.h>

#include <functional>

namespace rotor::frontend {
namespace {

using namespace clang;

bool is_ref_to(const Expr* e, const VarDecl* v) {
  const auto* dre = dyn_cast_or_null<DeclRefExpr>(e != nullptr ? e->IgnoreParens() : nullptr);
  return dre != nullptr && dre->getDecl() == v;
}

/// How the first statement naming `v` in a statement list leaves `v` for the list's later
/// statements (see the file comment).
enum class Status { bad, defined, contained };

Status first_naming(const Stmt* s, const VarDecl* v);

/// The statements of a list: the first one naming `v` decides; the later ones may name `v` only
/// when it is defined at this level.
Status statement_list(const std::vector<const Stmt*>& list, const VarDecl* v) {
  std::size_t i = 0;
  while (i < list.size() && !names_variable(list[i], v)) {
    ++i;
  }
  if (i == list.size()) {
    return Status::contained; // not named here at all: nothing to define
  }
  const Status first = first_naming(list[i], v);
  if (first == Status::contained) {
    for (std::size_t j = i + 1; j < list.size(); ++j) {
      if (names_variable(list[j], v)) {
        return Status::bad;
      }
    }
  }
  return first;
}

std::vector<const Stmt*> statements_of(const Stmt* s) {
  if (const auto* cs = dyn_cast<CompoundStmt>(s)) {
    return std::vector<const Stmt*>(cs->body_begin(), cs->body_end());
  }
  return {s};
}

/// A body run zero or more times (a loop's) or maybe not at all (a branch): contained or bad.
Status nested(const Stmt* body, const VarDecl* v) {
  if (body == nullptr || !names_variable(body, v)) {
    return Status::contained;
  }
  return statement_list(statements_of(body), v) == Status::bad ? Status::bad : Status::contained;
}

Status first_naming(const Stmt* s, const VarDecl* v) {
  if (const auto* ewc = dyn_cast<ExprWithCleanups>(s)) {
    s = ewc->getSubExpr();
  }
  if (const auto* bo = dyn_cast<BinaryOperator>(s)) {
    const bool defines = bo->getOpcode() == BO_Assign && is_ref_to(bo->getLHS(), v) &&
                         !names_variable(bo->getRHS(), v);
    return defines ? Status::defined : Status::bad;
  }
  if (const auto* cs = dyn_cast<CompoundStmt>(s)) {
    return statement_list(statements_of(cs), v);
  }
  if (const auto* fs = dyn_cast<ForStmt>(s)) {
    const bool header = names_variable(fs->getInit(), v) || names_variable(fs->getCond(), v) ||
                        names_variable(fs->getInc(), v) ||
                        names_variable(fs->getConditionVariableDeclStmt(), v);
    return header ? Status::bad : nested(fs->getBody(), v);
  }
  if (const auto* rs = dyn_cast<CXXForRangeStmt>(s)) {
    const bool header = names_variable(rs->getInit(), v) || names_variable(rs->getRangeStmt(), v) ||
                        names_variable(rs->getLoopVarStmt(), v);
    return header ? Status::bad : nested(rs->getBody(), v);
  }
  if (const auto* ws = dyn_cast<WhileStmt>(s)) {
    return names_variable(ws->getCond(), v) ? Status::bad : nested(ws->getBody(), v);
  }
  if (const auto* ds = dyn_cast<DoStmt>(s)) {
    // `continue` before the definition jumps to the condition: it may not name v.
    return names_variable(ds->getCond(), v) ? Status::bad : nested(ds->getBody(), v);
  }
  if (const auto* is = dyn_cast<IfStmt>(s)) {
    if (names_variable(is->getInit(), v) || names_variable(is->getCond(), v) ||
        names_variable(is->getConditionVariableDeclStmt(), v)) {
      return Status::bad;
    }
    const Status then_status = nested(is->getThen(), v);
    const Status else_status = nested(is->getElse(), v);
    return then_status == Status::bad || else_status == Status::bad ? Status::bad
                                                                    : Status::contained;
  }
  return Status::bad;
}

/// Every mention of `v` under `body` is a read of its value or a write of a whole new value (no
/// address, no reference, nothing unevaluated); counts the writes.
bool plain_mentions(const Stmt* body, const VarDecl* v, std::vector<const Stmt*>& writes) {
  ParentMap parents(const_cast<Stmt*>(body));
  bool ok = true;
  visit_statements(body, [&](const Stmt* x) {
    const auto* dre = dyn_cast<DeclRefExpr>(x);
    if (dre == nullptr || dre->getDecl() != v) {
      return;
    }
    const Stmt* child = dre;
    const Stmt* p = parents.getParent(dre);
    while (p != nullptr && isa<ParenExpr>(p)) {
      child = p;
      p = parents.getParent(p);
    }
    if (const auto* cast = dyn_cast_or_null<ImplicitCastExpr>(p);
        cast != nullptr && cast->getCastKind() == CK_LValueToRValue) {
      return;
    }
    if (const auto* bo = dyn_cast_or_null<BinaryOperator>(p);
        bo != nullptr && bo->isAssignmentOp() && bo->getLHS() == child) {
      writes.push_back(bo);
      return;
    }
    if (const auto* uo = dyn_cast_or_null<UnaryOperator>(p);
        uo != nullptr && uo->isIncrementDecrementOp()) {
      writes.push_back(uo);
      return;
    }
    ok = false;
  });
  return ok;
}

bool has_jump_target(const Stmt* body) {
  bool found = false;
  visit_statements(
      body, [&](const Stmt* x) { found = found || isa<GotoStmt, IndirectGotoStmt, LabelStmt>(x); });
  return found;
}

/// `v` is named in the loop statement only inside its body (not in the range or the header).
bool named_only_in_body(const LoopSite& loop, const VarDecl* v) {
  int in_statement = 0;
  int in_body = 0;
  visit_statements(loop.stmt, [&](const Stmt* x) {
    const auto* dre = dyn_cast<DeclRefExpr>(x);
    in_statement += dre != nullptr && dre->getDecl() == v ? 1 : 0;
  });
  visit_statements(loop.body, [&](const Stmt* x) {
    const auto* dre = dyn_cast<DeclRefExpr>(x);
    in_body += dre != nullptr && dre->getDecl() == v ? 1 : 0;
  });
  return in_statement == in_body;
}

bool scalar_candidate(const VarDecl* v) {
  const QualType t = v->getType();
  return (t->isArithmeticType() || t->isEnumeralType()) && !t.isVolatileQualified() &&
         v->hasLocalStorage() && !isa<ParmVarDecl>(v) && !v->isStaticLocal();
}

} // namespace

std::vector<ScratchScalar> find_scratch_scalars(const LoopSite& loop, const SourceManager& sm) {
  std::vector<ScratchScalar> out;
  if (has_jump_target(loop.body)) {
    return out;
  }
  for (const auto& [v, first] : outside_variables(loop, sm)) {
    if (!scalar_candidate(v) || !named_only_in(v, loop, sm) || !named_only_in_body(loop, v) ||
        first_naming(loop.body, v) == Status::bad) {
      continue;
    }
    std::vector<const Stmt*> writes;
    if (!plain_mentions(loop.body, v, writes)) {
      continue;
    }
    ScratchScalar s;
    s.var = v;
    s.first_use = first;
    if (writes.size() == 1) {
      s.single_def = dyn_cast<BinaryOperator>(writes[0]);
    }
    out.push_back(s);
  }
  return out;
}

} // namespace rotor::frontend
