// Raw pointer tables inside another object (docs/design/containers.md, "Tables inside another
// object"): funk-svd's `class Matrix { double** m; ... double get_value(int i, int j) { return
// this->m[i][j]; } }` held by the trainer as `Matrix* p` and used as `p->get_value(u, k)` in the
// loop. The object is reached from the loop through a pointer or reference data member
// (`this->p`), a member object (`this->P`) or a variable visible at the loop, and the table is
// analysed like the loop's own pointer tables, also inside the object's methods whose bodies are
// visible (their `this` is the call's object, their parameters the call's arguments). Its extent
// is bounded only from accesses reached in every iteration: unconditional inside the method, and
// the call itself reached in every iteration (LoweringPointerTables.cpp).

#include "LoweringState.h"
#include "RotorTypes.h"

namespace rotor::frontend::lowering {

namespace {

/// True when code at the loop (in member function `loop_method`, or nullptr: not in a member)
/// can name field `fd` as written: it is public, or a member of the loop's own class.
bool nameable_at_loop(const FieldDecl* fd, const CXXMethodDecl* loop_method) {
  return fd->getAccess() == AS_public || fd->getAccess() == AS_none ||
         (loop_method != nullptr && fd->getParent() == loop_method->getParent());
}

/// The class a member or variable of type `t` holds, points to or refers to, and the separator
/// that names a member of it (`->` through a pointer, `.` otherwise); nullptr for anything else.
const CXXRecordDecl* held_class(QualType t, std::string& separator) {
  separator = ".";
  if (t->isReferenceType()) {
    t = t.getNonReferenceType();
  } else if (t->isPointerType()) {
    t = t->getPointeeType();
    separator = "->";
  }
  const CXXRecordDecl* rd = t->getAsCXXRecordDecl();
  return rd != nullptr && rd->hasDefinition() && !rd->isLambda() ? rd : nullptr;
}

} // namespace

/// A variable the loop can name from outside: a global at file scope, or a local or parameter
/// of the function around the loop (also as a lambda's capture).
bool LoopLowering::visible_at_loop(const VarDecl* vd) const {
  if (vd->hasGlobalStorage() && !vd->isStaticLocal()) {
    return vd->getDeclContext()->getRedeclContext()->isTranslationUnit();
  }
  const auto* fn = dyn_cast_or_null<FunctionDecl>(vd->getParentFunctionOrMethod());
  if (fn == nullptr || fn->getBody() == nullptr) {
    return false;
  }
  const SourceRange body = fn->getBody()->getSourceRange();
  const SourceLocation at = sm_.getExpansionLoc(loop_.for_loc);
  return !sm_.isBeforeInTranslationUnit(at, sm_.getExpansionLoc(body.getBegin())) &&
         !sm_.isBeforeInTranslationUnit(sm_.getExpansionLoc(body.getEnd()), at);
}

/// The object `object` denotes, as a path from the loop (`out`): the loop's own object (empty
/// name, `this->`), a member object or the pointee of a pointer or reference member of an object
/// on such a path, or a class object, pointer or reference variable visible at the loop and not
/// local to it. A callee's `this` is its call's object, a reference parameter its argument.
/// False for anything else (a pointer read from data, a local, a call's result).
bool LoopLowering::object_path(const Expr* object, Frame& f, ObjectPath& out) const {
  object = object->IgnoreParenImpCasts();
  if (isa<CXXThisExpr>(object)) {
    if (&f == body_frame_) {
      out = {"", "this->"};
      return enclosing_method_ != nullptr;
    }
    return f.this_object != nullptr && f.caller != nullptr &&
           object_path(f.this_object, *f.caller, out);
  }
  std::string separator;
  if (const auto* me = dyn_cast<MemberExpr>(object)) {
    const auto* fd = dyn_cast<FieldDecl>(me->getMemberDecl());
    ObjectPath base;
    if (fd == nullptr || held_class(fd->getType(), separator) == nullptr ||
        !nameable_at_loop(fd, enclosing_method_) || !object_path(me->getBase(), f, base)) {
      return false;
    }
    const std::string hop = fd->getNameAsString() + separator;
    out = {(base.name.empty() ? "this->" : base.name) + hop, base.expression + hop};
    return true;
  }
  const auto* dre = dyn_cast<DeclRefExpr>(object);
  const auto* vd = dre == nullptr ? nullptr : dyn_cast<VarDecl>(dre->getDecl());
  if (vd == nullptr) {
    return false;
  }
  if (const auto* pvd = dyn_cast<ParmVarDecl>(vd); pvd != nullptr && &f != body_frame_) {
    const auto it = f.args.find(pvd);
    return it != f.args.end() && pvd->getType()->isReferenceType() &&
           object_path(it->second.first, *it->second.second, out);
  }
  if (held_class(vd->getType(), separator) == nullptr || inside_loop(vd->getLocation()) ||
      !visible_at_loop(vd) || name_at_loop(vd) != vd->getNameAsString()) {
    return false;
  }
  out = {vd->getNameAsString() + separator, vd->getNameAsString() + separator};
  return true;
}

/// A `T*` / `T**` table member of an object on a path from the loop other than the loop's own
/// object (`this->p->m`, `P.m`, `p->m`): an array named by its path. Other containers of other
/// objects stay what they were (a std::vector<std::vector<T>> is staged through a local of the
/// body, which the object's methods would not see).
Target LoopLowering::object_table_member(const MemberExpr* me, const FieldDecl* fd, Frame& f) {
  ObjectPath base;
  if (!object_path(me->getBase(), f, base) || base.name.empty()) {
    return {};
  }
  Target t = container_target(fd->getType());
  if (t.kind != Target::array_k || t.pointer == 0) {
    return {};
  }
  t.array = base.name + fd->getNameAsString();
  t.expression = nameable_at_loop(fd, enclosing_method_)
                     ? base.expression + fd->getNameAsString()
                     : member_access_expression(base, fd, t.element, t.pointer);
  if (t.expression.empty()) {
    return {};
  }
  t.decl = fd;
  t.in_object = true;
  return t;
}

/// How the loop's binding names protected or private table `fd` of the object at `base`: through
/// a pointer to member that an explicit instantiation at namespace scope takes (access is not
/// checked there, [temp.explicit]), declared before the top-level declaration around the loop:
///
///   namespace rotor_member_31_Matrix_m { struct Tag { using type = double** ::Matrix::*;
///     friend type rotor_member_of(Tag); }; template <class T, typename T::type M> struct Access
///     { friend typename T::type rotor_member_of(T) { return M; } };
///     template struct Access<Tag, &::Matrix::m>; }
///
/// and `(this->p)->*rotor_member_of(rotor_member_31_Matrix_m::Tag{})` at the loop. "" (the
/// table is not an array then) for a class that cannot be named there: local or a template.
std::string LoopLowering::member_access_expression(const ObjectPath& base, const FieldDecl* fd,
                                                   const std::string& element, int depth) {
  const RecordDecl* owner = fd->getParent();
  if (owner->getParentFunctionOrMethod() != nullptr || owner->isDependentContext() ||
      isa<ClassTemplateSpecializationDecl>(owner) || owner->getIdentifier() == nullptr) {
    return "";
  }
  const Decl* top = cast<Decl>(loop_var_->getDeclContext());
  while (!isa<NamespaceDecl, TranslationUnitDecl, LinkageSpecDecl>(top->getLexicalDeclContext())) {
    top = cast<Decl>(top->getLexicalDeclContext());
  }
  if (const auto* fn = dyn_cast<FunctionDecl>(top); fn && fn->getDescribedFunctionTemplate()) {
    top = fn->getDescribedFunctionTemplate();
  } else if (const auto* rd = dyn_cast<CXXRecordDecl>(top); rd && rd->getDescribedClassTemplate()) {
    top = rd->getDescribedClassTemplate();
  }
  const std::string owner_name = "::" + record_type_name(ctx_, owner);
  const std::string field = fd->getNameAsString();
  std::string tag = "rotor_member_" + std::to_string(loc_of(loop_.for_loc).line) + "_" +
                    owner->getNameAsString() + "_" + field;
  if (out_.member_access.find("namespace " + tag + " ") == std::string::npos) {
    out_.member_access += "namespace " + tag + " { struct Tag { using type = " + element +
                          std::string(static_cast<std::size_t>(depth), '*') + " " + owner_name +
                          "::*; friend type rotor_member_of(Tag); }; template <class T, typename "
                          "T::type M> struct Access { friend typename T::type rotor_member_of(T) "
                          "{ return M; } }; template struct Access<Tag, &" +
                          owner_name + "::" + field + ">; } ";
    out_.member_access_at = sm_.getExpansionLoc(top->getBeginLoc());
  }
  const bool arrow = base.expression.size() >= 2 &&
                     base.expression.compare(base.expression.size() - 2, 2, "->") == 0;
  const std::string object = base.expression.substr(0, base.expression.size() - (arrow ? 2 : 1));
  return "(" + object + ")" + (arrow ? "->*" : ".*") + "rotor_member_of(" + tag + "::Tag{})";
}

/// `p->get_value(...)`: a call of a method of an object on a path from the loop, reached through
/// pointer `pointer`. Not a read through an unknown pointer: the method's body is analysed with
/// `this` as that object (check_call blocks a method whose body is not visible or that may be
/// overridden), its tables are arrays, and a write to any other member of the object blocks.
bool LoopLowering::calls_method_of_object(const Expr* pointer, const Stmt* at, Frame& f) const {
  const auto* me = dyn_cast<MemberExpr>(at);
  ObjectPath path;
  return me != nullptr && isa<CXXMethodDecl>(me->getMemberDecl()) &&
         !cast<CXXMethodDecl>(me->getMemberDecl())->isStatic() &&
         isa_and_nonnull<CXXMemberCallExpr>(f.parents->getParent(me)) &&
         object_path(pointer, f, path);
}

/// `use` (the loop's object, or a class variable visible at the loop) is the object of a call of
/// a method of a member object of it (`U.set_value(...)`, `this->U.set_value(...)`, also
/// `Q.set_value(...)` on the variable itself) whose body is analysed with `this` bound, that is
/// not virtual and returns no non-const reference or pointer: like calls_analysed_method for the
/// loop's own methods, the call is no write to the object itself; the method's writes are found,
/// and blocked unless they are subscripts of a table, in its body.
bool LoopLowering::calls_object_method(const Expr* use, Frame& f) const {
  const Stmt* p = f.parents->getParent(use);
  std::string separator;
  for (;;) {
    while (p != nullptr && isa<ImplicitCastExpr, ParenExpr>(p)) {
      p = f.parents->getParent(p);
    }
    const auto* me = dyn_cast_or_null<MemberExpr>(p);
    if (me == nullptr) {
      return false;
    }
    const auto* fd = dyn_cast<FieldDecl>(me->getMemberDecl());
    if (fd == nullptr) {
      break;
    }
    if (held_class(fd->getType(), separator) == nullptr || separator != ".") {
      return false; // through a pointer member the pointer is only read (check_pointer_read)
    }
    p = f.parents->getParent(me);
  }
  const auto* me = cast<MemberExpr>(p);
  const auto* md = dyn_cast<CXXMethodDecl>(me->getMemberDecl());
  const auto* call = dyn_cast_or_null<CXXMemberCallExpr>(f.parents->getParent(me));
  if (md == nullptr || call == nullptr || call->getCallee()->IgnoreParens() != me ||
      md->isVirtual() || md->isStatic() || is_rotor_decl(md)) {
    return false;
  }
  const QualType result = md->getReturnType();
  if ((result->isReferenceType() || result->isPointerType()) &&
      !result->getPointeeType().isConstQualified()) {
    return false;
  }
  ObjectPath path;
  const FunctionDecl* def = nullptr;
  return md->hasBody(def) && def != nullptr && analysable_callee(def) &&
         object_path(me->getBase(), f, path) && !path.name.empty();
}

/// A reference member of an object on a path from the loop other than the loop's own object
/// (`this->data[i]` in a method of `*p`, with `std::vector<double>& data`) may name anything,
/// also a container the loop writes: reading through it counts as a read through an outside
/// pointer (it blocks a loop that writes), as `this->ptr[i]` does.
void LoopLowering::check_reference_member_read(const MemberExpr* me, Frame& f) {
  const auto* fd = dyn_cast<FieldDecl>(me->getMemberDecl());
  ObjectPath base;
  if (fd != nullptr && fd->getType()->isReferenceType() && object_path(me->getBase(), f, base) &&
      !base.name.empty()) {
    outside_pointer_reads_.emplace_back("'" + text_of(me) + "', a reference member",
                                        me->getBeginLoc());
  }
}

} // namespace rotor::frontend::lowering
