// Loop counters as bounds (docs/design/containers.md, "Checked columns"): a column or index that
// is the counter of a `for` loop around it lies in [start, bound) inside that loop's body when
// nothing but the loop's own init and step can change the counter while the body runs. The
// counter may be declared by the loop (`for (int k = 0; k < K; ++k)`) or before it and set by its
// init (GibbsLDA++'s search loop `for (topic = 0; topic < K; topic++)`); any other use that could
// change it (an address, a reference, a capture by reference, a jump into the body) denies the
// bound, and the access stays checked or the table unbounded.

#include "LoweringState.h"

#include <algorithm>

namespace rotor::frontend::lowering {

namespace {

bool is_declref_to(const Expr* e, const ValueDecl* d) {
  const auto* dre = dyn_cast_or_null<DeclRefExpr>(e);
  return dre != nullptr && dre->getDecl() == d;
}

/// `++j`, `j++` or `j += 1`.
bool steps_by_one(const Expr* inc, const ValueDecl* j, const ASTContext& ctx) {
  if (inc == nullptr) {
    return false;
  }
  inc = inc->IgnoreParens();
  if (const auto* uo = dyn_cast<UnaryOperator>(inc)) {
    return uo->isIncrementOp() && is_declref_to(uo->getSubExpr()->IgnoreParenImpCasts(), j);
  }
  if (const auto* bo = dyn_cast<CompoundAssignOperator>(inc)) {
    Expr::EvalResult r;
    return bo->getOpcode() == BO_AddAssign && is_declref_to(bo->getLHS()->IgnoreParens(), j) &&
           bo->getRHS()->EvaluateAsInt(r, ctx) && r.Val.getInt() == 1;
  }
  return false;
}

/// The nearest `for` whose body holds `use` and whose init declares counter `j` (`for (int j =
/// s; ...)`) or assigns it (`for (j = s; ...)`, j declared before the loop); `start` gets s.
const ForStmt* counting_loop_around(const Expr* use, const VarDecl* j, const ParentMap& parents,
                                    const Expr*& start) {
  const Stmt* child = use;
  for (const Stmt* p = parents.getParent(use); p != nullptr; child = p, p = parents.getParent(p)) {
    const auto* fs = dyn_cast<ForStmt>(p);
    if (fs == nullptr || child != fs->getBody()) {
      continue;
    }
    if (const auto* ds = dyn_cast_or_null<DeclStmt>(fs->getInit())) {
      const auto declares = [&](const Decl* d) { return d == j; };
      if (std::any_of(ds->decl_begin(), ds->decl_end(), declares)) {
        start = j->getInit();
        return fs;
      }
    }
    const auto* assign = dyn_cast_or_null<BinaryOperator>(fs->getInit());
    if (assign != nullptr && assign->getOpcode() == BO_Assign &&
        is_declref_to(assign->getLHS()->IgnoreParens(), j)) {
      start = assign->getRHS();
      return fs;
    }
  }
  return nullptr;
}

/// Whether a counter keeps the value its loop gives it in the loop's body: every use of the
/// counter `j` of `loop` under the walked statement must only read its value, or be the loop's
/// own init or step, or, for a counter declared before the loop, a plain write outside the loop
/// (it runs before or after, never during). Anything else (`&j`, a reference bound to it, even
/// a const one or a reference parameter, a capture by reference, another write, a write through
/// `?:`) may change j while the body runs, and denies the counter its range. So does a
/// jump into the body of a loop over a counter declared before it (a `goto`, or a `case` of a
/// switch outside the body), which would skip the init and the condition.
class CounterUses {
public:
  CounterUses(const VarDecl* j, const ForStmt* loop, bool declared_before)
      : j_(j), loop_(loop), declared_before_(declared_before) {}

  /// Walks `scope`; false when a use there may change the counter while the body runs.
  bool only_reads(const Stmt* scope) {
    walk(scope, nullptr, false, false, false);
    return ok_;
  }

private:
  /// `in_for`: under the loop statement (init, condition, step or body); `in_loop`: in its body.
  void walk(const Stmt* s, const Stmt* parent, bool in_for, bool in_loop, bool in_switch) {
    if (s == nullptr || !ok_) {
      return;
    }
    if (const auto* paren = dyn_cast<ParenExpr>(s)) {
      walk(paren->getSubExpr(), parent, in_for, in_loop, in_switch); // parentheses change nothing
      return;
    }
    in_for = in_for || s == loop_;
    in_loop = in_loop || s == loop_->getBody();
    if (declared_before_ &&
        (isa<GotoStmt, IndirectGotoStmt>(s) || (in_loop && !in_switch && isa<SwitchCase>(s)))) {
      ok_ = false;
      return;
    }
    if (const auto* dre = dyn_cast<DeclRefExpr>(s); dre != nullptr && dre->getDecl() == j_) {
      ok_ = allowed_use(dre, parent, in_for);
      return;
    }
    in_switch = in_switch || (in_loop && isa<SwitchStmt>(s)); // its cases belong to it
    for (const Stmt* child : s->children()) {
      walk(child, s, in_for, in_loop, in_switch);
    }
  }

  bool allowed_use(const DeclRefExpr* use, const Stmt* parent, bool in_for) const {
    if (const auto* cast = dyn_cast_or_null<ImplicitCastExpr>(parent)) {
      return cast->getCastKind() == CK_LValueToRValue;
    }
    if (parent == loop_->getInc()) {
      return true; // the step itself (steps_by_one checked its shape)
    }
    const auto* bo = dyn_cast_or_null<BinaryOperator>(parent);
    const bool plain_write =
        bo != nullptr && bo->isAssignmentOp() && bo->getLHS()->IgnoreParens() == use;
    if (parent == loop_->getInit()) {
      return plain_write; // `j = s`, not `int k = 0, &r = k`
    }
    if (in_for || !declared_before_) {
      return false; // any other write under the loop, or to a counter the loop declares
    }
    const auto* uo = dyn_cast_or_null<UnaryOperator>(parent);
    return plain_write || (uo != nullptr && uo->isIncrementDecrementOp());
  }

  const VarDecl* j_;
  const ForStmt* loop_;
  bool declared_before_;
  bool ok_ = true;
};

/// True when nothing but `loop`'s own init and step can change its counter `j` while the body
/// runs (CounterUses): the loop is walked for a counter it declares, else the function that
/// declares j.
bool counter_keeps_its_value(const VarDecl* j, const ForStmt* loop) {
  const bool declared_before = !isa_and_nonnull<DeclStmt>(loop->getInit());
  const Stmt* scope = loop;
  if (declared_before) {
    const auto* fn = dyn_cast_or_null<FunctionDecl>(j->getParentFunctionOrMethod());
    scope = fn == nullptr ? nullptr : fn->getBody();
  }
  return scope != nullptr && CounterUses(j, loop, declared_before).only_reads(scope);
}

} // namespace

/// What `column` provably ranges over, when it is the counter j of a `for (int j = s; j < bound;
/// ++j)` or `for (j = s; ...)` whose body holds it (s >= 0, bound the same in every iteration, j
/// a local integer that nothing but the loop's init and step can change while the body runs:
/// CounterUses), or `j - c` for a number c <= s: inside [0, bound), all of it when s and c are 0.
std::optional<LoopLowering::CounterRange> LoopLowering::counter_range(const Expr* column,
                                                                      Frame& f) {
  const Expr* c = strip_value_preserving(column, ctx_);
  std::optional<llvm::APSInt> minus; // the c of `j - c`
  if (const auto* sub = dyn_cast_or_null<BinaryOperator>(c);
      sub != nullptr && sub->getOpcode() == BO_Sub) {
    Expr::EvalResult number;
    if (!sub->getRHS()->EvaluateAsInt(number, ctx_) || number.Val.getInt().isNegative()) {
      return std::nullopt;
    }
    minus = number.Val.getInt();
    c = strip_value_preserving(sub->getLHS(), ctx_);
  }
  const auto* dre = dyn_cast_or_null<DeclRefExpr>(c);
  const auto* j = dre == nullptr ? nullptr : dyn_cast<VarDecl>(dre->getDecl());
  if (j == nullptr || !j->hasLocalStorage() || !j->getType()->isIntegerType()) {
    return std::nullopt;
  }
  const Expr* first = nullptr;
  const ForStmt* fs = counting_loop_around(dre, j, *f.parents, first);
  Expr::EvalResult start;
  if (fs == nullptr || first == nullptr || !first->EvaluateAsInt(start, ctx_) ||
      start.Val.getInt().isNegative() ||
      (minus && llvm::APSInt::compareValues(start.Val.getInt(), *minus) < 0)) {
    return std::nullopt;
  }
  const auto* cond = dyn_cast_or_null<BinaryOperator>(fs->getCond());
  if (cond == nullptr || cond->getOpcode() != BO_LT ||
      !is_declref_to(strip_value_preserving(cond->getLHS(), ctx_), j)) {
    return std::nullopt;
  }
  const Sym limit = eval(cond->getRHS(), f);
  if (limit.kind != Subscript::Kind::constant || !steps_by_one(fs->getInc(), j, ctx_) ||
      !counter_keeps_its_value(j, fs)) {
    return std::nullopt;
  }
  const bool whole = start.Val.getInt() == 0 && (!minus || *minus == 0);
  return CounterRange{limit.offset, whole, fs};
}

} // namespace rotor::frontend::lowering
