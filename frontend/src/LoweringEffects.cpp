// Deny by default: every memory effect of the loop body (and of everything it calls) has an
// accounted target, or it blocks every parallel plan with its source location. Accounted targets
// are locals of the loop or of a called function, the loop's own record (but not its key fields),
// DistArray accesses (recorded by the walk in Lowering.cpp), reductions and accumulators named in
// the loop. Writes through pointers, references, proxies and returned references are followed to
// their root here; a root that cannot be told is a blocker. Calls are analysed (visible user
// code), known (Rotor's API, Eigen, the known-pure list in KnownCallees.cpp, methods of standard
// classes whose effects are their object and arguments) or blockers.
// docs/design/dependence-model.md, "Deny by default".

#include "KnownCallees.h"
#include "LoweringState.h"
#include "OtherSources.h"
#include "RotorTypes.h"

#include <clang/AST/Attr.h>

#include <algorithm>

namespace rotor::frontend::lowering {

namespace {

Target unknown_target(std::string name, bool outside) {
  Target t;
  t.kind = Target::unknown_k;
  t.name = std::move(name);
  t.via_pointer = true;
  t.from_outside = outside;
  return t;
}

Target through_pointer(Target t) {
  t.via_pointer = true;
  return t;
}

const Expr* strip_value_casts(const Expr* e) {
  for (;;) {
    e = e->IgnoreParens();
    if (const auto* ice = dyn_cast<ImplicitCastExpr>(e)) {
      e = ice->getSubExpr();
      continue;
    }
    if (const auto* m = dyn_cast<MaterializeTemporaryExpr>(e)) {
      e = m->getSubExpr();
      continue;
    }
    if (const auto* b = dyn_cast<CXXBindTemporaryExpr>(e)) {
      e = b->getSubExpr();
      continue;
    }
    if (const auto* c = dyn_cast<ExprWithCleanups>(e)) {
      e = c->getSubExpr();
      continue;
    }
    return e;
  }
}

bool is_mutable_pointer(QualType t) {
  return t->isPointerType() && !t->getPointeeType().isConstQualified();
}

/// The object a member or operator call is made on, and whether it is reached through `->`.
const Expr* call_object(const CallExpr* call, bool& arrow) {
  arrow = false;
  if (const auto* mc = dyn_cast<CXXMemberCallExpr>(call)) {
    if (const auto* me = dyn_cast<MemberExpr>(mc->getCallee()->IgnoreParens())) {
      arrow = me->isArrow();
    }
    return mc->getImplicitObjectArgument();
  }
  if (const auto* op = dyn_cast<CXXOperatorCallExpr>(call);
      op != nullptr && isa_and_nonnull<CXXMethodDecl>(op->getDirectCallee()) &&
      op->getNumArgs() > 0) {
    return op->getArg(0);
  }
  return nullptr;
}

} // namespace

std::string LoopLowering::describe(const Target& t) const {
  if (!t.name.empty()) {
    return t.name;
  }
  if (t.decl != nullptr) {
    return t.decl->getNameAsString();
  }
  return t.array;
}

// ---- roots --------------------------------------------------------------------------------------

Target LoopLowering::root_of(const Expr* e, Frame& f) {
  e = e->IgnoreParens();
  if (const auto* ice = dyn_cast<ImplicitCastExpr>(e)) {
    if (ice->getCastKind() == CK_LValueToRValue) {
      return {}; // a value, not memory
    }
    if (ice->getCastKind() == CK_ArrayToPointerDecay) {
      return {};
    }
    return root_of(ice->getSubExpr(), f);
  }
  if (isa<MaterializeTemporaryExpr, CXXBindTemporaryExpr, ExprWithCleanups>(e)) {
    return root_of(strip_value_casts(e), f);
  }
  if (const auto* cast = dyn_cast<ExplicitCastExpr>(e)) {
    return root_of(cast->getSubExpr(), f);
  }
  if (const auto* co = dyn_cast<AbstractConditionalOperator>(e)) {
    return either_root(root_of(co->getTrueExpr(), f), root_of(co->getFalseExpr(), f), e);
  }
  if (const auto* dre = dyn_cast<DeclRefExpr>(e)) {
    return variable_root(dre, f);
  }
  if (const auto* me = dyn_cast<MemberExpr>(e)) {
    return member_root(me, f);
  }
  if (const auto* ase = dyn_cast<ArraySubscriptExpr>(e)) {
    const Expr* base = ase->getBase()->IgnoreParens();
    if (const auto* ice = dyn_cast<ImplicitCastExpr>(base);
        ice != nullptr && ice->getCastKind() == CK_ArrayToPointerDecay) {
      return root_of(ice->getSubExpr(), f);
    }
    return pointee_of(ase->getBase(), f);
  }
  if (const auto* uo = dyn_cast<UnaryOperator>(e)) {
    if (uo->getOpcode() == UO_Deref) {
      return pointee_of(uo->getSubExpr(), f);
    }
    if (uo->isPrefix() && uo->isIncrementDecrementOp()) {
      return root_of(uo->getSubExpr(), f);
    }
    return {};
  }
  if (const auto* bo = dyn_cast<BinaryOperator>(e)) {
    if (bo->isAssignmentOp() || bo->isCompoundAssignmentOp()) {
      return root_of(bo->getLHS(), f);
    }
    if (bo->getOpcode() == BO_Comma) {
      return root_of(bo->getRHS(), f);
    }
    return {};
  }
  if (const auto* call = dyn_cast<CallExpr>(e)) {
    return call_result_root(call, f);
  }
  return {};
}

/// Either of two roots (`c ? a : b`): a local or no memory on one side leaves the other; two
/// different non-local roots cannot be told apart.
Target LoopLowering::either_root(const Target& a, const Target& b, const Expr* e) const {
  const auto harmless = [](const Target& t) {
    return t.kind == Target::local_k || t.kind == Target::none;
  };
  if (harmless(a)) {
    return harmless(b) ? a : b;
  }
  return harmless(b) ? a : unknown_target(text_of(e), false);
}

Target LoopLowering::variable_root(const DeclRefExpr* dre, Frame& f) {
  const ValueDecl* d = dre->getDecl();
  if (const auto* pvd = dyn_cast<ParmVarDecl>(d)) {
    if (auto it = f.args.find(pvd); it != f.args.end()) {
      return root_of(it->second.first, *it->second.second);
    }
  }
  if (auto it = f.pointees.find(d); it != f.pointees.end() && d->getType()->isReferenceType()) {
    return it->second;
  }
  Target t = target_of(dre, f);
  const auto* vd = dyn_cast<VarDecl>(d);
  if (t.kind == Target::local_k && vd != nullptr && vd->getType()->isReferenceType() &&
      !isa<ParmVarDecl>(vd) && !is_dist_array(vd->getType())) {
    return unknown_target(vd->getNameAsString(), false); // a reference we did not follow
  }
  return t;
}

Target LoopLowering::member_root(const MemberExpr* me, Frame& f) {
  const auto* fd = dyn_cast<FieldDecl>(me->getMemberDecl());
  if (fd == nullptr) {
    return {};
  }
  Target arr = target_of(me, f);
  if (arr.kind == Target::array_k) {
    return arr;
  }
  Target base = me->isArrow() ? pointee_of(me->getBase(), f) : root_of(me->getBase(), f);
  if (fd->getType()->isReferenceType()) {
    return unknown_target(fd->getNameAsString(), true);
  }
  if (base.kind == Target::record_k && base.member == nullptr) {
    base.member = fd;
  }
  if (base.kind == Target::outer_k && base.decl == nullptr) {
    base.name = fd->getNameAsString(); // a member of the object the loop's method runs on
  }
  return base;
}

Target LoopLowering::pointee_of(const Expr* e, Frame& f) {
  e = e->IgnoreParens();
  if (const auto* ice = dyn_cast<ImplicitCastExpr>(e)) {
    if (ice->getCastKind() == CK_ArrayToPointerDecay) {
      return through_pointer(root_of(ice->getSubExpr(), f));
    }
    return pointee_of(ice->getSubExpr(), f);
  }
  if (isa<MaterializeTemporaryExpr, CXXBindTemporaryExpr, ExprWithCleanups>(e)) {
    return pointee_of(strip_value_casts(e), f);
  }
  if (const auto* cast = dyn_cast<ExplicitCastExpr>(e)) {
    return pointee_of(cast->getSubExpr(), f);
  }
  if (isa<CXXNullPtrLiteralExpr, IntegerLiteral, GNUNullExpr>(e)) {
    return {};
  }
  if (isa<CXXThisExpr>(e)) {
    return target_of(e, f);
  }
  if (const auto* uo = dyn_cast<UnaryOperator>(e)) {
    if (uo->getOpcode() == UO_AddrOf) {
      return through_pointer(root_of(uo->getSubExpr(), f));
    }
    if (uo->isIncrementDecrementOp()) {
      return pointee_of(uo->getSubExpr(), f);
    }
    return unknown_target(text_of(e), false);
  }
  if (const auto* bo = dyn_cast<BinaryOperator>(e)) {
    if (bo->isAdditiveOp() || bo->isCompoundAssignmentOp()) {
      return pointee_of(bo->getLHS()->getType()->isPointerType() ? bo->getLHS() : bo->getRHS(), f);
    }
    if (bo->getOpcode() == BO_Assign || bo->getOpcode() == BO_Comma) {
      return pointee_of(bo->getRHS(), f);
    }
    return unknown_target(text_of(e), false);
  }
  if (const auto* co = dyn_cast<AbstractConditionalOperator>(e)) {
    return either_root(pointee_of(co->getTrueExpr(), f), pointee_of(co->getFalseExpr(), f), e);
  }
  if (const auto* dre = dyn_cast<DeclRefExpr>(e)) {
    const ValueDecl* d = dre->getDecl();
    if (const auto* pvd = dyn_cast<ParmVarDecl>(d)) {
      if (auto it = f.args.find(pvd); it != f.args.end()) {
        return pointee_of(it->second.first, *it->second.second);
      }
    }
    if (auto it = f.pointees.find(d); it != f.pointees.end()) {
      return mutated_.count(d) ? unknown_target(d->getNameAsString(), false) : it->second;
    }
    const Target t = target_of(dre, f);
    if (t.kind == Target::row_k || t.kind == Target::array_k) {
      return t;
    }
    return unknown_target(d->getNameAsString(), t.kind == Target::outer_k);
  }
  if (const auto* me = dyn_cast<MemberExpr>(e)) {
    if (const Target t = target_of(me, f); t.kind == Target::array_k && t.pointer != 0) {
      return t; // a pointer table member of the loop's object (LoweringPointerTables.cpp)
    }
    return unknown_target(me->getMemberDecl()->getNameAsString(), true);
  }
  if (const auto* call = dyn_cast<CallExpr>(e)) {
    return through_pointer(call_result_root(call, f));
  }
  if (const auto* ase = dyn_cast<ArraySubscriptExpr>(e)) {
    // `t[w]` of a T** table: the row pointer points into the table (the access is recorded)
    if (const Target t = pointee_of(ase->getBase(), f);
        t.kind == Target::array_k && t.pointer == 2) {
      return t;
    }
  }
  return unknown_target(text_of(e), false);
}

Target LoopLowering::call_result_root(const CallExpr* call, Frame& f) {
  if (is_site_element(loop_, call)) {
    return record_target(); // `v[i]` of an index loop over a vector
  }
  const FunctionDecl* fd = call->getDirectCallee();
  bool arrow = false;
  const Expr* object = call_object(call, arrow);
  if (object != nullptr) {
    Target obj = arrow ? pointee_of(object, f) : root_of(object, f);
    if (obj.kind == Target::array_k || obj.kind == Target::row_k) {
      return obj; // a DistArray or row access: recorded by the walk
    }
    const auto* md = dyn_cast_or_null<CXXMethodDecl>(fd);
    if (md != nullptr && analysable_callee(md)) {
      return {}; // what it returns was checked inside it (check_write_site on its returns)
    }
    const QualType object_type = object->getType();
    const bool owner = owns_elements(object_type) || (md != nullptr && is_rotor_decl(md));
    if (md != nullptr && owner && (md->isConst() || is_element_accessor(md))) {
      return through_pointer(obj);
    }
    if (const auto* dre = dyn_cast<DeclRefExpr>(strip_value_casts(object))) {
      if (auto it = f.pointees.find(dre->getDecl()); it != f.pointees.end()) {
        return it->second; // an iterator or view made in the loop
      }
    }
    if (obj.kind == Target::local_k && md != nullptr &&
        (is_element_accessor(md) || is_eigen_view_method(md)) &&
        (is_eigen_decl(md) || sm_.isInSystemHeader(md->getLocation()))) {
      return obj; // an iterator, view or expression object of the loop's own
    }
    return unknown_target(text_of(call), false);
  }
  if (fd != nullptr && analysable_callee(fd)) {
    return {};
  }
  if (fd != nullptr && is_known_pure_function(fd) && call->getNumArgs() > 0 &&
      fd->getReturnType()->isReferenceType()) {
    return root_of(call->getArg(0), f); // std::get, std::move, std::forward
  }
  return unknown_target(text_of(call), false);
}

// ---- writes -------------------------------------------------------------------------------------

void LoopLowering::check_write(const Expr* written, const Stmt* at, Frame& f) {
  const Target t = root_of(written, f);
  const std::string where =
      &f == body_frame_ || f.fn == nullptr ? "" : " (in '" + f.fn->getNameAsString() + "')";
  switch (t.kind) {
  case Target::record_k:
    if (t.member != nullptr && is_key_head(t.member)) {
      escape(analysis::Escape::Kind::outside_write,
             "the key field '" + t.member->getNameAsString() + "' of the record is written" + where,
             at->getBeginLoc());
    } else if (t.member == nullptr && !key_paths_.empty() && t.via_pointer) {
      escape(analysis::Escape::Kind::outside_write,
             "the record is written as a whole through '" + text_of(written) + "'" + where,
             at->getBeginLoc());
    } else if (t.member != nullptr) {
      written_fields_.insert(t.member);
    }
    return;
  case Target::point_k:
    escape(analysis::Escape::Kind::outside_write, "the loop's index point is written" + where,
           at->getBeginLoc());
    return;
  case Target::outer_k:
    if (t.via_pointer) {
      escape(analysis::Escape::Kind::outside_write,
             "'" + describe(t) + "' is declared outside the loop and written in it",
             at->getBeginLoc());
    }
    return;
  case Target::unknown_k:
    escape(analysis::Escape::Kind::pointer_taken,
           "'" + text_of(written) + "' writes through '" + describe(t) +
               "', whose target Rotor cannot tell" + where,
           at->getBeginLoc());
    return;
  default:
    return;
  }
}

/// The function or lambda a `return` belongs to returns a mutable reference or pointer.
static bool returns_mutable_handle(const ReturnStmt* ret, const FunctionDecl* fn,
                                   const ParentMap& parents) {
  for (const Stmt* p = parents.getParent(ret); p != nullptr; p = parents.getParent(p)) {
    if (const auto* lambda = dyn_cast<LambdaExpr>(p)) {
      fn = lambda->getCallOperator();
      break;
    }
  }
  if (fn == nullptr) {
    return false;
  }
  const QualType t = fn->getReturnType();
  return is_nonconst_ref(t) || is_mutable_pointer(t);
}

void LoopLowering::check_write_site(const Stmt* s, Frame& f) {
  if (const auto* bo = dyn_cast<BinaryOperator>(s); bo != nullptr && bo->isAssignmentOp()) {
    check_write(bo->getLHS(), s, f);
  } else if (const auto* uo = dyn_cast<UnaryOperator>(s);
             uo != nullptr && uo->isIncrementDecrementOp()) {
    check_write(uo->getSubExpr(), s, f);
  } else if (const auto* op = dyn_cast<CXXOperatorCallExpr>(s);
             op != nullptr && op->getNumArgs() > 0 && is_modifying_operator(op->getOperator())) {
    check_write(op->getArg(0), s, f);
  } else if (const auto* ret = dyn_cast<ReturnStmt>(s);
             ret != nullptr && ret->getRetValue() != nullptr &&
             returns_mutable_handle(ret, f.fn, *f.parents)) {
    const Expr* value = ret->getRetValue();
    if (value->getType()->isPointerType()) {
      const Target t = pointee_of(value, f);
      if (t.kind == Target::unknown_k || t.kind == Target::outer_k) {
        escape(analysis::Escape::Kind::pointer_taken,
               "'" + text_of(value) + "' returns a pointer to '" + describe(t) +
                   "', whose target Rotor cannot tell",
               s->getBeginLoc());
      }
    } else {
      check_write(value, s, f);
    }
  }
}

/// Records what a local reference, pointer, iterator or view declared in the loop (or in a
/// function it calls) reaches, so that writes through it find their root.
void LoopLowering::note_binding(const VarDecl* vd, Frame& f) {
  const Expr* init = vd->getInit();
  if (init == nullptr || f.env.count(vd)) {
    return;
  }
  const QualType t = vd->getType();
  if (t->isReferenceType()) {
    if (!is_dist_array(t)) {
      f.pointees[vd] = through_pointer(root_of(init, f));
    }
  } else if (t->isPointerType()) {
    f.pointees[vd] = pointee_of(init, f);
  } else if (t->isRecordType() && !owns_elements(t) && !is_dist_array(t)) {
    const Expr* source = strip_value_casts(init);
    if (const auto* ctor = dyn_cast<CXXConstructExpr>(source);
        ctor != nullptr && ctor->getNumArgs() == 1) {
      source = strip_value_casts(ctor->getArg(0));
    }
    if (const auto* call = dyn_cast<CallExpr>(source)) {
      f.pointees[vd] = call_result_root(call, f); // an iterator or view
    } else if (const auto* dre = dyn_cast<DeclRefExpr>(source)) {
      if (auto it = f.pointees.find(dre->getDecl()); it != f.pointees.end()) {
        f.pointees[vd] = it->second;
      }
    }
  }
}

// ---- calls --------------------------------------------------------------------------------------

bool LoopLowering::blocks_rotor_call(const CallExpr* call, const FunctionDecl* fd, Frame& f) {
  bool arrow = false;
  const Expr* object = call_object(call, arrow);
  const auto* md = dyn_cast<CXXMethodDecl>(fd);
  if (object == nullptr || md == nullptr) {
    return false; // rotor's free functions: codegen helpers, loaders (checked by their arguments)
  }
  const Expr* obj = strip_value_casts(object);
  if (is_accumulator(object->getType())) {
    const OverloadedOperatorKind op = md->getOverloadedOperator();
    if (op != OO_PlusEqual && op != OO_MinusEqual && op != OO_StarEqual) {
      if (const auto* vd = dyn_cast_or_null<VarDecl>(target_of(obj, f).decl)) {
        blocked_reductions_.insert(vd); // also through a helper's reference parameter
      }
      escape(analysis::Escape::Kind::outside_write,
             "'" + text_of(call) + "' reads or resets an accumulator inside the loop (each " +
                 "worker has its own partial until the loop ends)",
             call->getBeginLoc());
      return true;
    }
    return false;
  }
  if (const auto* dre = dyn_cast<DeclRefExpr>(obj);
      dre != nullptr && range_decl_ != nullptr && dre->getDecl() == range_decl_) {
    const std::string name = md->getNameAsString();
    if (name != "size" && name != "empty") {
      escape(analysis::Escape::Kind::outside_write,
             "the loop's own dataset is used inside the loop ('" + text_of(call) + "')",
             call->getBeginLoc());
      return true;
    }
  }
  return false;
}

/// `this->m(...)` (or `m(...)`) calling a non-virtual member function whose body the lowering
/// analyses with `this` bound (check_call, on_call) and that returns no non-const reference or
/// pointer: the call is no write to `*this` itself; the method's writes to members are found,
/// and reported by their own names, in its body (finding F3: `predict(u, i)`, which writes
/// nothing, was reported as "'predict' is declared outside the loop and written in it").
bool LoopLowering::calls_analysed_method(const CXXThisExpr* te, Frame& f) const {
  const Stmt* p = f.parents->getParent(te);
  while (p != nullptr && isa<ImplicitCastExpr, ParenExpr>(p)) {
    p = f.parents->getParent(p);
  }
  const auto* me = dyn_cast_or_null<MemberExpr>(p);
  const auto* md = me != nullptr ? dyn_cast<CXXMethodDecl>(me->getMemberDecl()) : nullptr;
  const auto* call =
      me != nullptr ? dyn_cast_or_null<CXXMemberCallExpr>(f.parents->getParent(me)) : nullptr;
  if (md == nullptr || call == nullptr || call->getCallee()->IgnoreParens() != me ||
      md->isVirtual() || is_rotor_decl(md)) {
    return false;
  }
  const QualType result = md->getReturnType();
  if ((result->isReferenceType() || result->isPointerType()) &&
      !result->getPointeeType().isConstQualified()) {
    return false;
  }
  const FunctionDecl* def = nullptr;
  return md->hasBody(def) && def != nullptr && analysable_callee(def);
}

std::string LoopLowering::not_visible(const FunctionDecl* fd) const {
  const std::string why =
      other_sources_ != nullptr ? other_sources_->why_not_imported(fd) : std::string();
  return "', whose body is not visible here" + (why.empty() ? std::string() : " (" + why + ")");
}

bool LoopLowering::check_call(const CallExpr* call, const FunctionDecl* fd, Frame& f,
                              bool& analyse) {
  analyse = false;
  if (fd == nullptr) {
    escape(analysis::Escape::Kind::unknown_call,
           "call through '" + text_of(call->getCallee()) + "' (its target is not known)",
           call->getBeginLoc());
    return false;
  }
  if (const auto* md = dyn_cast<CXXMethodDecl>(fd); md != nullptr && md->isVirtual() &&
                                                    !md->hasAttr<FinalAttr>() &&
                                                    !md->getParent()->hasAttr<FinalAttr>()) {
    const auto* mc = dyn_cast<CXXMemberCallExpr>(call);
    const auto* me =
        mc != nullptr ? dyn_cast<MemberExpr>(mc->getCallee()->IgnoreParens()) : nullptr;
    if (me == nullptr || !me->hasQualifier()) {
      escape(analysis::Escape::Kind::unknown_call,
             "virtual call to '" + md->getNameAsString() +
                 "' (the body that runs is chosen at run time)",
             call->getBeginLoc());
      return false;
    }
  }
  if (is_rotor_decl(fd)) {
    if (blocks_rotor_call(call, fd, f)) {
      return false;
    }
    check_call_arguments(call, fd, f);
    return true;
  }
  const FunctionDecl* def = nullptr;
  if (fd->hasBody(def) && def != nullptr && analysable_callee(def)) {
    analyse = true;
    return true;
  }
  const bool system = sm_.isInSystemHeader(fd->getLocation()) || fd->getBuiltinID() != 0;
  if (!system) {
    escape(analysis::Escape::Kind::unknown_call,
           "call to '" + fd->getNameAsString() + not_visible(fd), call->getBeginLoc());
    return false;
  }
  const auto* md = dyn_cast<CXXMethodDecl>(fd);
  if (md != nullptr && is_type_erased_callable(QualType(md->getParent()->getTypeForDecl(), 0))) {
    escape(analysis::Escape::Kind::unknown_call,
           "call through '" + text_of(call) + "', a std::function (its target is not known)",
           call->getBeginLoc());
    return false;
  }
  for (const Expr* arg : call->arguments()) {
    if (is_callable_argument(arg->getType())) {
      escape(analysis::Escape::Kind::unknown_call,
             "'" + fd->getNameAsString() + "' calls back into code Rotor does not see ('" +
                 text_of(arg) + "')",
             call->getBeginLoc());
      return false;
    }
  }
  if (md == nullptr && on_libc_generator_call(call, fd)) {
    return true; // private(random) / private(rand): a per-worker generator (Privatisation.cpp)
  }
  if (md == nullptr && !fd->isOverloadedOperator() && !is_eigen_decl(fd) &&
      !is_known_pure_function(fd)) {
    const std::string name = fd->getNameAsString();
    escape(analysis::Escape::Kind::unknown_call,
           "call to '" + name +
               "', which Rotor does not know to be free of hidden state (known-pure list: "
               "docs/design/dependence-model.md)",
           call->getBeginLoc(),
           name == "random" || name == "rand"
               ? "add private(" + name +
                     ") to the pragma to give each worker its own generator "
                     "(the loop is then no longer serial-equivalent)"
               : std::string());
    return false;
  }
  check_call_arguments(call, fd, f);
  return true;
}

/// A function Rotor does not analyse writes its object (a non-const method that is not an
/// element accessor) and what its non-const reference and pointer parameters reach.
void LoopLowering::check_call_arguments(const CallExpr* call, const FunctionDecl* fd, Frame& f) {
  bool arrow = false;
  const Expr* object = call_object(call, arrow);
  const auto* md = dyn_cast<CXXMethodDecl>(fd);
  unsigned first = 0;
  if (object != nullptr && md != nullptr) {
    first = isa<CXXOperatorCallExpr>(call) ? 1 : 0;
    if (!md->isConst() && !md->isStatic() && !is_element_accessor(md) &&
        !is_modifying_operator(md->getOverloadedOperator())) {
      if (arrow) {
        // `p->push_back(x)`: the object p points to is written; the pointer itself is not, so
        // check_write(p) would find nothing to report.
        const Target t = pointee_of(object, f);
        if (t.kind == Target::unknown_k || (t.kind == Target::outer_k && t.via_pointer)) {
          escape(analysis::Escape::Kind::pointer_taken,
                 "'" + text_of(call) + "' changes what '" + text_of(object) +
                     "' points to, whose target Rotor cannot tell",
                 call->getBeginLoc());
        }
      } else {
        check_write(object, call, f);
      }
    }
  }
  for (unsigned i = first; i < call->getNumArgs(); ++i) {
    const unsigned pi = i - first;
    const Expr* arg = call->getArg(i);
    QualType pt = pi < fd->getNumParams() ? fd->getParamDecl(pi)->getType() : arg->getType();
    if (is_nonconst_ref(pt)) {
      check_write(arg, call, f);
    } else if (is_mutable_pointer(pt)) {
      const Target t = pointee_of(arg, f);
      if (t.kind == Target::unknown_k || t.kind == Target::point_k ||
          (t.kind == Target::outer_k && t.via_pointer)) {
        escape(analysis::Escape::Kind::pointer_taken,
               "'" + fd->getNameAsString() + "' writes through '" + text_of(arg) +
                   "', whose target Rotor cannot tell",
               call->getBeginLoc());
      }
    }
  }
}

} // namespace rotor::frontend::lowering
