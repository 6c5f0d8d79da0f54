/// \file
/// How a use of an expression is used by its context: read, write, `+=`/`-=`, alias, address.
/// `classify` walks up the parents of the use one node at a time; each kind of parent either
/// decides the use or hands the walk on to itself (a cast, a member, a call returning a
/// reference). When unsure, the answer is a write.

#include "LoweringState.h"

#include "KnownCallees.h"
#include "RotorTypes.h"

#include <clang/AST/DeclCXX.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/ParentMap.h>

#include <optional>
#include <set>
#include <string>

namespace rotor::frontend::lowering {

namespace {

/// How a method call uses its object.
enum class MethodUse { read, write, plus_minus, address, follow_call };

/// The use of argument `i` of a call to `fd` (null: an unknown callee, so a write).
UseInfo parameter_use(const FunctionDecl* fd, unsigned i) {
  if (fd == nullptr) {
    return {Use::write};
  }
  if (i >= fd->getNumParams()) {
    return {Use::read};
  }
  const QualType t = fd->getParamDecl(i)->getType();
  if (t->isReferenceType()) {
    return t.getNonReferenceType().isConstQualified() ? UseInfo{Use::read} : UseInfo{Use::write};
  }
  if (t->isPointerType() && !t->getPointeeType().isConstQualified()) {
    return {Use::write};
  }
  return {Use::read};
}

/// `Eigen::Ref<const T>`: a view that cannot write.
bool is_const_eigen_ref(QualType t) {
  const auto* spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      t.getNonReferenceType()->getAsCXXRecordDecl());
  return spec != nullptr && spec->getNameAsString() == "Ref" &&
         spec->getTemplateArgs().size() > 0 &&
         spec->getTemplateArgs()[0].getKind() == TemplateArgument::Type &&
         spec->getTemplateArgs()[0].getAsType().isConstQualified();
}

/// A view of a matrix (`H.row(u)`) handed on as another view that may write through it: a
/// by-value parameter (a copy of a view views the same memory: `void f(Eigen::Block<...> b)`,
/// `template <class B> void f(B b)`), or an Eigen view constructed from it
/// (`Eigen::Ref<Eigen::RowVectorXf> r = H.row(u)`, a `Ref` parameter: Ref's constructor takes a
/// const reference and writes through it anyway). A constructor of another class is a function
/// like any other (`Bumper(Eigen::Block<...> row)` by value writes). Not a plain Matrix built
/// from it (a copy, by const reference) nor an `Eigen::Ref<const T>`.
bool passes_writable_view(const Expr* arg, const FunctionDecl* callee, unsigned i) {
  if (!is_eigen_view_type(arg->getType())) {
    return false;
  }
  if (const auto* ctor = dyn_cast_or_null<CXXConstructorDecl>(callee)) {
    const QualType made = ctor->getASTContext().getRecordType(ctor->getParent());
    if (is_eigen_view_type(made)) {
      return !is_const_eigen_ref(made);
    }
  }
  return callee != nullptr && i < callee->getNumParams() &&
         !callee->getParamDecl(i)->getType()->isReferenceType() &&
         !callee->getParamDecl(i)->getType()->isPointerType() &&
         !is_const_eigen_ref(callee->getParamDecl(i)->getType());
}

/// The use of a function call's argument `cur` (read if `cur` is not an argument).
template <typename Call>
UseInfo argument_use(const Call* call, const Stmt* cur, const FunctionDecl* callee) {
  for (unsigned i = 0; i < call->getNumArgs(); ++i) {
    if (call->getArg(i) == cur) {
      return passes_writable_view(call->getArg(i), callee, i) ? UseInfo{Use::write}
                                                              : parameter_use(callee, i);
    }
  }
  return {Use::read};
}

/// A non-const Eigen method that returns a view of its object's memory and changes nothing
/// itself (`transpose()`, `adjoint()`, `array()`, `matrix()`, `conjugate()`): what is done with
/// the view decides (`V.row(j).transpose()` read, `W.row(u).transpose() = x` written).
bool is_eigen_view_method(const CXXMethodDecl* md) {
  static const std::set<std::string> views = {"transpose", "adjoint", "array", "matrix",
                                              "conjugate"};
  return md->getNumParams() == 0 && views.count(md->getNameAsString()) != 0 && is_eigen_decl(md);
}

/// How `md` called on the walked expression uses it; follow_call when the call returns a
/// reference to it (`v[i]`, `M(i, j)`, `front()`), whose own use decides.
MethodUse method_use(const CXXMethodDecl* md, const Expr* call, bool direct, bool analysable) {
  if (md->getNameAsString() == "data") {
    return MethodUse::address;
  }
  const OverloadedOperatorKind op = md->getOverloadedOperator();
  if (op == OO_PlusEqual || op == OO_MinusEqual) {
    return direct ? MethodUse::plus_minus : MethodUse::write;
  }
  if (is_modifying_operator(op)) {
    return MethodUse::write;
  }
  if (md->isConst() || md->isStatic()) {
    return MethodUse::read;
  }
  const std::string name = md->getNameAsString();
  if (call != nullptr && is_eigen_view_method(md)) {
    return MethodUse::follow_call; // `V.row(j).transpose()`: a view of the same memory
  }
  if (op == OO_Subscript && !is_element_accessor(md) && !analysable) {
    return MethodUse::write; // a map's operator[] inserts
  }
  if (op == OO_Call || op == OO_Subscript || name == "coeffRef" || name == "at" ||
      name == "front" || name == "back" || name == "operator*") {
    if (call != nullptr && md->getReturnType()->isReferenceType()) {
      return MethodUse::follow_call;
    }
    if (md->getReturnType()->isReferenceType()) {
      return MethodUse::write;
    }
    // By value: an element accessor reads (vector<bool>'s proxy is followed by the write
    // check); any other non-const call operator (an engine, a distribution, a mutable
    // lambda) changes its object.
    return is_element_accessor(md) || is_rotor_decl(md) ? MethodUse::read : MethodUse::write;
  }
  return MethodUse::write;
}

/// Whether the value of the expression `op` is thrown away (`n += x;`, `++n;`, a for's increment,
/// the left of a comma, a cast to void): only then is `n += x` / `++n` a reduction's update; a
/// used value (`idx = (n += 1)`, `a[n++]`) would read the worker's partial sum.
bool value_discarded(const Stmt* op, const ParentMap& parents) {
  const Stmt* at = op;
  const Stmt* q = parents.getParent(at);
  while (q != nullptr && isa<ParenExpr, ExprWithCleanups>(q)) {
    at = q;
    q = parents.getParent(q);
  }
  if (q == nullptr || isa<CompoundStmt>(q)) {
    return true;
  }
  if (const auto* cast = dyn_cast<ExplicitCastExpr>(q)) {
    return cast->getTypeAsWritten()->isVoidType();
  }
  if (const auto* bo = dyn_cast<BinaryOperator>(q)) {
    return bo->getOpcode() == BO_Comma && bo->getLHS() == at && value_discarded(bo, parents);
  }
  if (const auto* fs = dyn_cast<ForStmt>(q)) {
    return fs->getInc() == at || fs->getBody() == at;
  }
  if (const auto* is = dyn_cast<IfStmt>(q)) {
    return is->getThen() == at || is->getElse() == at;
  }
  if (const auto* ws = dyn_cast<WhileStmt>(q)) {
    return ws->getBody() == at;
  }
  if (const auto* ds = dyn_cast<DoStmt>(q)) {
    return ds->getBody() == at;
  }
  return false;
}

} // namespace

std::optional<UseInfo> LoopLowering::classify_method(const CXXMethodDecl* md, const Expr* call,
                                                     UseWalk& w) const {
  switch (method_use(md, call, w.direct, analysable_callee(md))) {
  case MethodUse::read:
    return UseInfo{Use::read};
  case MethodUse::write:
    return UseInfo{Use::write};
  case MethodUse::plus_minus:
    return value_discarded(call, *w.parents) ? UseInfo{Use::plus_minus} : UseInfo{Use::write};
  case MethodUse::address:
    return UseInfo{Use::address};
  case MethodUse::follow_call:
    break;
  }
  return w.go_to(call, /*indirect=*/true);
}

std::optional<UseInfo> LoopLowering::classify_member(const MemberExpr* me, UseWalk& w,
                                                     Frame& f) const {
  if (isa<FieldDecl>(me->getMemberDecl())) {
    return w.go_to(me, /*indirect=*/true);
  }
  if (const auto* md = dyn_cast<CXXMethodDecl>(me->getMemberDecl())) {
    return classify_method(md, dyn_cast_or_null<Expr>(f.parents->getParent(me)), w);
  }
  return UseInfo{Use::read};
}

std::optional<UseInfo> LoopLowering::classify_operator_call(const CXXOperatorCallExpr* op,
                                                            UseWalk& w) const {
  unsigned i = 0;
  while (i < op->getNumArgs() && op->getArg(i) != w.cur) {
    ++i;
  }
  if (i == op->getNumArgs()) {
    return UseInfo{Use::read}; // the callee itself
  }
  const FunctionDecl* fd = op->getDirectCallee();
  if (const auto* md = dyn_cast_or_null<CXXMethodDecl>(fd)) {
    return i == 0 ? classify_method(md, op, w) : parameter_use(md, i - 1);
  }
  if (fd != nullptr && is_modifying_operator(op->getOperator()) && i == 0) {
    return UseInfo{Use::write};
  }
  return parameter_use(fd, i);
}

std::optional<UseInfo> LoopLowering::classify_operator(const Stmt* p, UseWalk& w) const {
  if (const auto* bo = dyn_cast<BinaryOperator>(p)) {
    if (bo->isAssignmentOp() && bo->getLHS() == w.cur) {
      const bool plus_minus = bo->getOpcode() == BO_AddAssign || bo->getOpcode() == BO_SubAssign;
      return plus_minus && w.direct && value_discarded(bo, *w.parents) ? UseInfo{Use::plus_minus}
                                                                       : UseInfo{Use::write};
    }
    if (bo->getOpcode() == BO_Comma && bo->getRHS() == w.cur) {
      return w.go_to(p);
    }
    return UseInfo{Use::read};
  }
  if (const auto* uo = dyn_cast<UnaryOperator>(p)) {
    if (uo->getOpcode() == UO_Deref) {
      return w.go_to(p, /*indirect=*/true);
    }
    if (uo->getOpcode() == UO_AddrOf) {
      return UseInfo{Use::address};
    }
    if (!uo->isIncrementDecrementOp()) {
      return UseInfo{Use::read};
    }
    // `++n;` is `n += 1;`: a reduction's update where its value is not used
    return w.direct && value_discarded(uo, *w.parents) ? UseInfo{Use::plus_minus}
                                                       : UseInfo{Use::write};
  }
  const auto* ase = cast<ArraySubscriptExpr>(p);
  if (ase->getBase() == w.cur) {
    return w.go_to(p, /*indirect=*/true);
  }
  return UseInfo{Use::read};
}

UseInfo LoopLowering::classify_declaration(const DeclStmt* ds, const UseWalk& w) const {
  for (const Decl* d : ds->decls()) {
    if (const auto* vd = dyn_cast<VarDecl>(d); vd != nullptr && vd->getInit() == w.cur) {
      if (vd->getType()->isReferenceType()) {
        return vd->getType().getNonReferenceType().isConstQualified() ? UseInfo{Use::read}
                                                                      : UseInfo{Use::write};
      }
      if (w.through_conditional) {
        return {Use::write}; // `auto r = c ? W.row(u) : H.row(i)`: no single alias
      }
      return {Use::alias_init, vd};
    }
  }
  return {Use::read};
}

UseInfo LoopLowering::classify_return(const Stmt* ret, Frame& f) const {
  const FunctionDecl* fn = f.fn;
  for (const Stmt* q = f.parents->getParent(ret); q != nullptr; q = f.parents->getParent(q)) {
    if (const auto* lambda = dyn_cast<LambdaExpr>(q)) {
      fn = lambda->getCallOperator(); // a lambda written in the loop returns it
      break;
    }
  }
  if (fn == nullptr) {
    return {Use::read};
  }
  // A mutable reference, or a view returned by value (an Eigen row map, an iterator): the
  // caller may write through it.
  const QualType rt = fn->getReturnType();
  const bool view = rt->isRecordType() && !owns_elements(rt) && !is_dist_array(rt);
  return is_nonconst_ref(rt) || view ? UseInfo{Use::write} : UseInfo{Use::read};
}

std::optional<UseInfo> LoopLowering::classify_conversion(const Stmt* p, UseWalk& w) const {
  if (const auto* ice = dyn_cast<ImplicitCastExpr>(p)) {
    if (ice->getCastKind() == CK_LValueToRValue) {
      return UseInfo{Use::read};
    }
    if (ice->getCastKind() == CK_ArrayToPointerDecay) {
      return UseInfo{Use::address};
    }
    return w.go_to(p);
  }
  if (const auto* co = dyn_cast<ConditionalOperator>(p)) {
    if (co->getCond() == w.cur) {
      return UseInfo{Use::read};
    }
    w.through_conditional = true; // either branch may be the one used
    return w.go_to(p);
  }
  if (const auto* cast = dyn_cast<ExplicitCastExpr>(p)) {
    if (is_nonconst_ref(cast->getTypeAsWritten())) {
      return w.go_to(p);
    }
    return UseInfo{Use::read};
  }
  return w.go_to(p); // a parenthesis, a temporary, cleanups
}

std::optional<UseInfo> LoopLowering::classify_step(const Stmt* p, UseWalk& w, Frame& f) const {
  if (isa<ImplicitCastExpr, ConditionalOperator, ExplicitCastExpr, ParenExpr,
          MaterializeTemporaryExpr, ExprWithCleanups, CXXBindTemporaryExpr>(p)) {
    return classify_conversion(p, w);
  }
  if (const auto* me = dyn_cast<MemberExpr>(p)) {
    return classify_member(me, w, f);
  }
  if (const auto* op = dyn_cast<CXXOperatorCallExpr>(p)) {
    return classify_operator_call(op, w);
  }
  if (const auto* call = dyn_cast<CallExpr>(p)) {
    return argument_use(call, w.cur, call->getDirectCallee());
  }
  if (const auto* ctor = dyn_cast<CXXConstructExpr>(p)) {
    return argument_use(ctor, w.cur, ctor->getConstructor());
  }
  if (isa<BinaryOperator, UnaryOperator, ArraySubscriptExpr>(p)) {
    return classify_operator(p, w);
  }
  if (const auto* ds = dyn_cast<DeclStmt>(p)) {
    return classify_declaration(ds, w);
  }
  if (isa<ReturnStmt>(p)) {
    return classify_return(p, f);
  }
  if (isa<InitListExpr, LambdaExpr, CXXStdInitializerListExpr>(p) || !isa<Expr>(p)) {
    return UseInfo{Use::read};
  }
  return UseInfo{Use::write}; // unsure
}

UseInfo LoopLowering::classify(const Expr* e, Frame& f) const {
  UseWalk w{e, f.parents.get()};
  for (int guard = 0; guard < 64; ++guard) {
    const Stmt* p = f.parents->getParent(w.cur);
    if (p == nullptr) {
      return {Use::read};
    }
    if (std::optional<UseInfo> decided = classify_step(p, w, f)) {
      return *decided;
    }
  }
  return {Use::write};
}

} // namespace rotor::frontend::lowering
