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

#include <algorithm>
#include <functional>
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

/// A type whose objects hold only values, no pointer, reference or view: arithmetic types and
/// enums, std::vector / std::array / std::deque / std::valarray, Eigen matrices, std::pair and
/// std::tuple of them, and
/// records (no base, no virtual) whose fields are such. Reading one reads its own memory only.
bool holds_only_values(QualType t, int depth = 0) {
  t = t.getCanonicalType();
  if (t->isArithmeticType() || t->isEnumeralType()) {
    return true;
  }
  if (const auto* at = dyn_cast<ConstantArrayType>(t.getTypePtr())) {
    return holds_only_values(at->getElementType(), depth);
  }
  const CXXRecordDecl* rd = t->getAsCXXRecordDecl();
  if (rd == nullptr || !rd->hasDefinition() || depth > 4) {
    return false;
  }
  if (owns_elements(t)) {
    // the element types: the first argument of a sequence or matrix, every one of a pair/tuple
    static const std::set<std::string> one_element = {"vector",   "array",  "deque",
                                                      "valarray", "Matrix", "Array"};
    const auto* spec = dyn_cast<ClassTemplateSpecializationDecl>(rd);
    if (spec == nullptr) {
      return false;
    }
    const std::string name = spec->getNameAsString();
    const bool all = name == "pair" || name == "tuple";
    if (!all && one_element.count(name) == 0) {
      return false;
    }
    const TemplateArgumentList& args = spec->getTemplateArgs();
    for (unsigned i = 0; i < (all ? args.size() : std::min(args.size(), 1u)); ++i) {
      const bool values = args[i].getKind() == TemplateArgument::Pack
                              ? std::all_of(args[i].pack_begin(), args[i].pack_end(),
                                            [&](const TemplateArgument& a) {
                                              return a.getKind() == TemplateArgument::Type &&
                                                     holds_only_values(a.getAsType(), depth + 1);
                                            })
                              : args[i].getKind() == TemplateArgument::Type &&
                                    holds_only_values(args[i].getAsType(), depth + 1);
      if (!values) {
        return false;
      }
    }
    return args.size() > 0;
  }
  if (is_eigen_decl(rd) || rd->getNumBases() != 0 || rd->isPolymorphic()) {
    return false;
  }
  for (const FieldDecl* field : rd->fields()) {
    if (!holds_only_values(field->getType(), depth + 1)) {
      return false;
    }
  }
  return true;
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

UseInfo LoopLowering::classify_declaration(const DeclStmt* ds, const UseWalk& w, Frame& f) const {
  if (const auto* loop = dyn_cast_or_null<CXXForRangeStmt>(f.parents->getParent(ds));
      loop != nullptr && loop->getRangeStmt() == ds) {
    return classify_range_for(loop, f);
  }
  for (const Decl* d : ds->decls()) {
    if (const auto* vd = dyn_cast<VarDecl>(d); vd != nullptr && vd->getInit() == w.cur) {
      if (vd->getType()->isReferenceType()) {
        const QualType named = vd->getType().getNonReferenceType();
        return named.isConstQualified() || reference_only_read(vd, ds, f) ? UseInfo{Use::read}
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

/// `for (x : range)` over a container of values: the loop variable's uses decide (a copy or a
/// const reference reads; a non-const reference reads when all its uses read).
UseInfo LoopLowering::classify_range_for(const CXXForRangeStmt* loop, Frame& f) const {
  const VarDecl* range = loop->getRangeStmt() != nullptr
                             ? dyn_cast_or_null<VarDecl>(loop->getRangeStmt()->getSingleDecl())
                             : nullptr;
  const VarDecl* var = loop->getLoopVariable();
  if (range == nullptr || var == nullptr || isa<DecompositionDecl>(var)) {
    return {Use::write};
  }
  const QualType elements = range->getType().getNonReferenceType();
  if (elements.isConstQualified()) {
    return {Use::read};
  }
  if (!owns_elements(elements) || !holds_only_values(elements)) {
    return {Use::write};
  }
  const QualType t = var->getType();
  if (!t->isReferenceType()) {
    return holds_only_values(t) ? UseInfo{Use::read} : UseInfo{Use::write};
  }
  return t.getNonReferenceType().isConstQualified() ||
                 reference_only_read(var, loop->getLoopVarStmt(), f)
             ? UseInfo{Use::read}
             : UseInfo{Use::write};
}

/// Whether every use of the non-const reference `vd` (declared by `ds` in `f`'s function) reads
/// what it names, so that binding it is a read. Only a reference to values (holds_only_values:
/// no pointer inside whose target a read would hand on) is followed, not a structured binding,
/// not one used in a lambda (its calls are elsewhere), and not beyond four references deep; a
/// copy of its value is a read.
bool LoopLowering::reference_only_read(const VarDecl* vd, const DeclStmt* ds, Frame& f) const {
  if (isa<DecompositionDecl>(vd) || !holds_only_values(vd->getType().getNonReferenceType()) ||
      references_followed_ >= 4) {
    return false;
  }
  const Stmt* root = ds;
  while (const Stmt* up = f.parents->getParent(root)) {
    root = up;
  }
  std::vector<const DeclRefExpr*> uses;
  bool in_lambda = false;
  std::function<void(const Stmt*, bool)> collect = [&](const Stmt* s, bool lambda) {
    if (s == nullptr) {
      return;
    }
    lambda = lambda || isa<LambdaExpr, BlockExpr, CapturedStmt>(s);
    if (const auto* dre = dyn_cast<DeclRefExpr>(s); dre != nullptr && dre->getDecl() == vd) {
      uses.push_back(dre);
      in_lambda = in_lambda || lambda;
    }
    for (const Stmt* child : s->children()) {
      collect(child, lambda);
    }
  };
  collect(root, false);
  if (in_lambda) {
    return false;
  }
  ++references_followed_;
  bool only_read = true;
  for (const DeclRefExpr* use : uses) {
    const UseInfo u = classify(use, f);
    const bool copied = u.use == Use::alias_init && u.var != nullptr &&
                        !u.var->getType()->isReferenceType() && holds_only_values(u.var->getType());
    only_read = only_read && (u.use == Use::read || copied);
  }
  --references_followed_;
  return only_read;
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
    return classify_declaration(ds, w, f);
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
