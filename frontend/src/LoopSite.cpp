#include "LoopSite.h"

#include "PointerChains.h"
#include "RotorTypes.h"

#include <clang/AST/Decl.h>
#include <clang/AST/DeclTemplate.h>
#include <clang/AST/ExprCXX.h>

namespace rotor::frontend {

using namespace clang;

namespace {

bool names(const Expr* e, const VarDecl* v) {
  const auto* dre =
      dyn_cast_or_null<DeclRefExpr>(e == nullptr ? nullptr : e->IgnoreParenImpCasts());
  return dre != nullptr && dre->getDecl() == v;
}

/// The field of `this->v` or of `v` (implicit `this`), a member of the object the loop's method
/// runs on; nullptr for anything else.
const FieldDecl* this_member(const Expr* e) {
  const auto* me = dyn_cast_or_null<MemberExpr>(e == nullptr ? nullptr : e->IgnoreParenImpCasts());
  if (me == nullptr || !isa<CXXThisExpr>(me->getBase()->IgnoreParenImpCasts())) {
    return nullptr;
  }
  return dyn_cast<FieldDecl>(me->getMemberDecl());
}

/// `I i = 0` (one integer variable, initialised with the literal 0).
const VarDecl* zero_start(const Stmt* init, std::string& why) {
  const auto* ds = dyn_cast_or_null<DeclStmt>(init);
  const auto* v =
      ds != nullptr && ds->isSingleDecl() ? dyn_cast<VarDecl>(ds->getSingleDecl()) : nullptr;
  const auto* zero = v != nullptr && v->getInit() != nullptr
                         ? dyn_cast<IntegerLiteral>(v->getInit()->IgnoreParenImpCasts())
                         : nullptr;
  if (v == nullptr || !v->getType()->isIntegerType() || zero == nullptr || zero->getValue() != 0) {
    why = "it must declare one integer index starting at 0 ('std::size_t i = 0')";
    return nullptr;
  }
  return v;
}

/// `i < v.size()`: the vector expression `v`.
const Expr* size_bound(const Expr* cond, const VarDecl* i, std::string& why) {
  const auto* bo =
      dyn_cast_or_null<BinaryOperator>(cond == nullptr ? nullptr : cond->IgnoreParenImpCasts());
  const auto* size =
      bo != nullptr ? dyn_cast<CXXMemberCallExpr>(bo->getRHS()->IgnoreParenImpCasts()) : nullptr;
  const auto* md = size != nullptr ? size->getMethodDecl() : nullptr;
  if (bo == nullptr || bo->getOpcode() != BO_LT || !names(bo->getLHS(), i) || md == nullptr ||
      md->getNameAsString() != "size" || size->getNumArgs() != 0) {
    why = "its condition must be 'i < v.size()'";
    return nullptr;
  }
  const Expr* v = size->getImplicitObjectArgument()->IgnoreParenImpCasts();
  if (!isa<DeclRefExpr>(v) && this_member(v) == nullptr) {
    why = "the vector of 'i < v.size()' must be a variable or a member of 'this'";
    return nullptr;
  }
  return v;
}

/// `i < n`: n, an integer variable, an integer member of `this` or an integer constant
/// expression (`i < 100`, `i < kUsers`, a macro); nullptr otherwise.
const Expr* integer_bound(const Expr* cond, const VarDecl* i) {
  const auto* bo =
      dyn_cast_or_null<BinaryOperator>(cond == nullptr ? nullptr : cond->IgnoreParenImpCasts());
  if (bo == nullptr || bo->getOpcode() != BO_LT || !names(bo->getLHS(), i)) {
    return nullptr;
  }
  const Expr* n = bo->getRHS()->IgnoreParenImpCasts();
  if (is_constant_bound(n, i->getASTContext())) {
    return n;
  }
  const auto* dre = dyn_cast<DeclRefExpr>(n);
  const auto* var = dre != nullptr ? dyn_cast<VarDecl>(dre->getDecl()) : nullptr;
  const FieldDecl* field = this_member(n);
  const bool integer = (var != nullptr && var->getType()->isIntegerType()) ||
                       (field != nullptr && field->getType()->isIntegerType());
  return integer ? n : nullptr;
}

/// `++i`, `i++` or `i += 1`.
bool unit_step(const Expr* inc, const VarDecl* i) {
  if (inc == nullptr) {
    return false;
  }
  inc = inc->IgnoreParenImpCasts();
  if (const auto* uo = dyn_cast<UnaryOperator>(inc)) {
    return uo->isIncrementOp() && names(uo->getSubExpr(), i);
  }
  if (const auto* ca = dyn_cast<CompoundAssignOperator>(inc)) {
    const auto* one = dyn_cast<IntegerLiteral>(ca->getRHS()->IgnoreParenImpCasts());
    return ca->getOpcode() == BO_AddAssign && names(ca->getLHS(), i) && one != nullptr &&
           one->getValue() == 1;
  }
  return false;
}

/// A `break` that leaves `s` itself (not one of an inner loop or switch, nor in a lambda).
bool has_own_break(const Stmt* s, bool top = true) {
  if (s == nullptr || isa<LambdaExpr>(s) ||
      (!top && isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt, SwitchStmt>(s))) {
    return false;
  }
  if (isa<BreakStmt>(s)) {
    return true;
  }
  for (const Stmt* c : s->children()) {
    if (has_own_break(c, false)) {
      return true;
    }
  }
  return false;
}

/// `for (I n = 0; n < B; ++n)` with B a ragged bound of `outer`, and no `break` of its own (a
/// pair cannot end its row early): the loop, else nullptr. The outer body must be this loop
/// alone (or a block holding only it). Otherwise the loop is an integer range whose body holds
/// an ordinary inner loop.
const ForStmt* ragged_inner(const Stmt* outer_body, const VarDecl* outer) {
  const Stmt* only = outer_body;
  if (const auto* block = dyn_cast_or_null<CompoundStmt>(outer_body)) {
    only = block->size() == 1 ? block->body_front() : nullptr;
  }
  const auto* inner = dyn_cast_or_null<ForStmt>(only);
  std::string why;
  const VarDecl* n = inner != nullptr ? zero_start(inner->getInit(), why) : nullptr;
  const auto* cond = n != nullptr
                         ? dyn_cast_or_null<BinaryOperator>(inner->getCond()->IgnoreParenImpCasts())
                         : nullptr;
  if (cond == nullptr || cond->getOpcode() != BO_LT || !names(cond->getLHS(), n) ||
      !unit_step(inner->getInc(), n) || !is_ragged_bound(cond->getRHS(), outer) ||
      has_own_break(inner->getBody())) {
    return nullptr;
  }
  return inner;
}

/// Through parentheses, implicit casts and explicit integer casts (`(int)v[d].size()`).
const Expr* strip_integer_casts(const Expr* e) {
  for (;;) {
    e = e->IgnoreParenImpCasts();
    const auto* cast = dyn_cast<ExplicitCastExpr>(e);
    if (cast == nullptr || !cast->getType()->isIntegerType()) {
      return e;
    }
    e = cast->getSubExpr();
  }
}

} // namespace

bool is_constant_bound(const Expr* n, const ASTContext& ctx) {
  return n != nullptr && n->getType()->isIntegerType() && !n->isValueDependent() &&
         n->isIntegerConstantExpr(ctx);
}

const Expr* subscripted_by(const Expr* e, const VarDecl* index) {
  const auto* op =
      dyn_cast_or_null<CXXOperatorCallExpr>(e == nullptr ? nullptr : e->IgnoreParenImpCasts());
  if (op == nullptr || op->getOperator() != OO_Subscript || op->getNumArgs() != 2 ||
      !names(op->getArg(1), index)) {
    return nullptr;
  }
  return op->getArg(0)->IgnoreParenImpCasts();
}

const Expr* subscript_base_by(const Expr* e, const VarDecl* index) {
  const Expr* base = subscripted_by(e, index);
  return base != nullptr && (isa<DeclRefExpr>(base) || this_member(base) != nullptr) ? base
                                                                                     : nullptr;
}

const Expr* ragged_bound_array(const Expr* bound, const VarDecl* i) {
  const Expr* b = strip_integer_casts(bound);
  if (const auto* call = dyn_cast<CXXMemberCallExpr>(b)) { // A[i].size()
    const auto* md = call->getMethodDecl();
    return md != nullptr && md->getNameAsString() == "size" && call->getNumArgs() == 0
               ? subscript_base_by(call->getImplicitObjectArgument(), i)
               : nullptr;
  }
  return subscript_base_by(b, i); // len[i]
}

bool is_ragged_bound(const Expr* bound, const VarDecl* i) {
  if (const Expr* chain = nullptr; bound != nullptr && chain_bound_field(bound, i, chain)) {
    return true; // `p->docs[i]->length`: a read-only pointer chain (PointerChains.h)
  }
  const Expr* array = bound != nullptr && bound->getType()->isIntegerType()
                          ? ragged_bound_array(bound, i)
                          : nullptr;
  if (array == nullptr) {
    return false;
  }
  // `A[i].size()`: A a std::vector of std::vectors; `len[i]`: a std::vector of integers.
  const QualType element = std_vector_element(array->getType());
  if (element.isNull()) {
    return false;
  }
  return isa<CXXMemberCallExpr>(strip_integer_casts(bound))
             ? !std_vector_element(element).isNull()
             : element->isIntegerType() && !element->isBooleanType();
}

LoopSite range_for_site(const CXXForRangeStmt& loop) {
  LoopSite s;
  s.stmt = &loop;
  s.body = loop.getBody();
  s.for_loc = loop.getForLoc();
  s.var = loop.getLoopVariable();
  s.range = loop.getRangeInit();
  return s;
}

LoopSite index_loop_site(const ForStmt& loop, std::string& why) {
  const VarDecl* i = zero_start(loop.getInit(), why);
  if (i == nullptr) {
    return {};
  }
  const Expr* v = size_bound(loop.getCond(), i, why);
  const Expr* n = v == nullptr ? integer_bound(loop.getCond(), i) : nullptr;
  if (v == nullptr && n == nullptr) {
    if (why == "its condition must be 'i < v.size()'") {
      why = "its condition must be 'i < v.size()' or 'i < n' (n an integer constant, variable or "
            "member)";
    }
    return {};
  }
  if (!unit_step(loop.getInc(), i)) {
    why = "its step must be '++i', 'i++' or 'i += 1'";
    return {};
  }
  LoopSite s;
  s.stmt = &loop;
  s.body = loop.getBody();
  s.for_loc = loop.getForLoc();
  s.var = i;
  s.range = v != nullptr ? v : n;
  s.index_loop = true;
  s.int_range = n != nullptr;
  if (const ForStmt* inner = s.int_range ? ragged_inner(s.body, i) : nullptr) {
    s.inner = inner;
    s.inner_var = cast<VarDecl>(cast<DeclStmt>(inner->getInit())->getSingleDecl());
    s.inner_bound = cast<BinaryOperator>(inner->getCond()->IgnoreParenImpCasts())->getRHS();
    s.body = inner;
  }
  return s;
}

bool is_site_element(const LoopSite& site, const Expr* e) {
  if (!site.index_loop || site.int_range || e == nullptr) {
    return false;
  }
  const auto* op = dyn_cast<CXXOperatorCallExpr>(e->IgnoreParenImpCasts());
  if (op == nullptr || op->getOperator() != OO_Subscript || op->getNumArgs() != 2 ||
      !names(op->getArg(1), site.var)) {
    return false;
  }
  const auto* base = dyn_cast<DeclRefExpr>(op->getArg(0)->IgnoreParenImpCasts());
  const auto* range = dyn_cast<DeclRefExpr>(site.range->IgnoreParenImpCasts());
  if (base != nullptr || range != nullptr) {
    return base != nullptr && range != nullptr && base->getDecl() == range->getDecl();
  }
  const FieldDecl* field = this_member(site.range);
  return field != nullptr && this_member(op->getArg(0)) == field;
}

const FieldDecl* site_member(const LoopSite& site) {
  return site.index_loop && !site.int_range ? this_member(site.range) : nullptr;
}

} // namespace rotor::frontend
