#include "Lowering.h"
#include "LoweringState.h"

#include "KnownCallees.h"
#include "LoopSiteNames.h"
#include "RotorTypes.h"

#include <clang/AST/DeclCXX.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/ParentMap.h>
#include <clang/Lex/Lexer.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>

namespace rotor::frontend {

using namespace clang;
using analysis::Offset;
using analysis::Subscript;

Diagnostic make_diagnostic(const SourceManager& sm, SourceLocation loc, Severity severity,
                           std::string message, const std::string& file_name) {
  Diagnostic d;
  d.severity = severity;
  d.message = std::move(message);
  loc = sm.getExpansionLoc(loc);
  if (loc.isValid()) {
    const bool main = sm.isWrittenInMainFile(loc);
    d.file = main ? file_name : sm.getFilename(loc).str();
    d.line = static_cast<int>(sm.getExpansionLineNumber(loc));
    d.col = static_cast<int>(sm.getExpansionColumnNumber(loc));
    bool invalid = false;
    const char* data = sm.getCharacterData(loc, &invalid);
    if (!invalid) {
      const char* begin = data - (d.col - 1);
      const char* end = data;
      while (*end != '\0' && *end != '\n' && *end != '\r') {
        ++end;
      }
      d.source_line.assign(begin, end);
    }
  }
  return d;
}

} // namespace rotor::frontend

namespace rotor::frontend::lowering {

bool add_offsets(const Offset& a, const Offset& b, int sign, Offset& out) {
  if (!b.symbol.empty() && (!a.symbol.empty() || sign < 0)) {
    if (sign < 0 && a.symbol.empty()) {
      out.symbol = "-" + b.symbol;
      out.value = a.value - b.value;
      return true;
    }
    return false;
  }
  out.symbol = a.symbol.empty() ? b.symbol : a.symbol;
  out.value = a.value + sign * b.value;
  return true;
}

bool is_modifying_operator(OverloadedOperatorKind op) {
  switch (op) {
  case OO_Equal:
  case OO_PlusEqual:
  case OO_MinusEqual:
  case OO_StarEqual:
  case OO_SlashEqual:
  case OO_PercentEqual:
  case OO_AmpEqual:
  case OO_PipeEqual:
  case OO_CaretEqual:
  case OO_LessLessEqual:
  case OO_GreaterGreaterEqual:
  case OO_PlusPlus:
  case OO_MinusMinus:
    return true;
  default:
    return false;
  }
}

bool is_nonconst_ref(QualType t) {
  return t->isReferenceType() && !t.getNonReferenceType().isConstQualified();
}

bool offset_at_most(const Offset& a, const Offset& b) {
  return a.symbol == b.symbol && a.value <= b.value;
}

// ---- what an expression names ---------------------------------------------------------------

Target LoopLowering::target_of(const Expr* e, Frame& f) {
  e = e->IgnoreParenImpCasts();
  if (is_site_element(loop_, e)) {
    return record_target(); // `v[i]` of an index loop over a vector: the record
  }
  if (const auto* cast = dyn_cast<ExplicitCastExpr>(e)) {
    return target_of(cast->getSubExpr(), f);
  }
  if (isa<CXXThisExpr>(e)) {
    return target_of_this(f);
  }
  if (const auto* me = dyn_cast<MemberExpr>(e)) {
    return target_of_member(me, f);
  }
  const auto* dre = dyn_cast<DeclRefExpr>(e);
  if (dre == nullptr) {
    return {};
  }
  const ValueDecl* d = dre->getDecl();
  if (auto it = f.env.find(d); it != f.env.end()) {
    return it->second;
  }
  if (const auto* pvd = dyn_cast<ParmVarDecl>(d)) {
    if (auto it = f.args.find(pvd); it != f.args.end()) {
      return target_of(it->second.first, *it->second.second);
    }
  }
  if (d == loop_var_ && loop_.index_loop) {
    Target t; // an index loop's index: read only (on_declref); its value is a key (eval)
    t.kind = Target::local_k;
    t.decl = d;
    return t;
  }
  if (d == loop_var_) {
    Target t;
    t.kind = out_.index_rank > 0 ? Target::point_k : Target::record_k;
    t.decl = d;
    return t;
  }
  const auto* vd = dyn_cast<VarDecl>(d);
  return vd == nullptr ? Target{} : target_of_variable(vd, dre, f);
}

/// The loop's record (a range-for's variable, an index loop's `v[i]`).
Target LoopLowering::record_target() const {
  Target t;
  t.kind = Target::record_k;
  t.decl = loop_var_;
  return t;
}

/// `this`: the caller's object in a member function called from the loop, or the object the
/// loop's own member function runs on (outside the loop).
Target LoopLowering::target_of_this(Frame& f) {
  if (f.this_object != nullptr && f.caller != nullptr) {
    return target_of(f.this_object, *f.caller);
  }
  if (&f == body_frame_ && enclosing_method_ != nullptr) {
    Target t;
    t.kind = Target::outer_k;
    t.name = "this";
    return t;
  }
  return {};
}

/// A member of something outside is outside (a DistArray or plain-container member of the loop's
/// object is that array); a member of the record is the record.
Target LoopLowering::target_of_member(const MemberExpr* me, Frame& f) {
  Target base = target_of(me->getBase(), f);
  if (base.kind != Target::outer_k && base.kind != Target::record_k &&
      base.kind != Target::local_k) {
    return {};
  }
  const auto* fd = dyn_cast<FieldDecl>(me->getMemberDecl());
  if (fd == nullptr || base.kind != Target::outer_k) {
    return base;
  }
  if (is_dist_array(fd->getType())) {
    Target t;
    t.decl = fd;
    const bool through_this = isa<CXXThisExpr>(me->getBase()->IgnoreParenImpCasts());
    if (through_this && !names_loop_object(me->getBase(), f)) {
      // `this->W` in a member function called on another object (`peer->bump(u)`): that
      // object's W, which the member's name at the loop does not name: unknown (a write blocks)
      t.kind = Target::unknown_k;
      return t;
    }
    t.kind = Target::array_k;
    // `this->W` where the loop's method has a parameter or local W (the runtime is given the
    // array by this name at the loop)
    t.array = through_this ? name_at_loop(fd) : text_of(me);
    t.rank = dist_array_rank(fd->getType());
    t.element = dist_array_element(fd->getType());
    return t;
  }
  if (Target t = row_vector_member(me, fd, f); t.kind == Target::array_k) {
    return t;
  }
  if (Target t = object_table_member(me, fd, f); t.kind == Target::array_k) {
    return t;
  }
  return base;
}

/// A variable: local to the loop (or a per-worker copy), or outside (a DistArray or plain
/// container outside is that array).
Target LoopLowering::target_of_variable(const VarDecl* vd, const DeclRefExpr* dre, Frame& f) {
  Target t;
  t.decl = vd;
  const bool local = is_private_here(vd, dre->getLocation()) ||
                     (!vd->isStaticLocal() && (inside_loop(vd->getLocation()) ||
                                               (f.fn != nullptr && vd->isLocalVarDeclOrParm() &&
                                                vd->getParentFunctionOrMethod() == f.fn)));
  if (is_dist_array(vd->getType()) && !local) {
    // the runtime is given the array by this name at the loop (`std::tie(W)`): `::W` where the
    // loop's function shadows a global W; none (a write blocks) where the loop cannot name it
    t.array = name_at_loop(vd);
    if (t.array.empty()) {
      t.kind = Target::unknown_k;
      return t;
    }
    t.kind = Target::array_k;
    t.rank = dist_array_rank(vd->getType());
    t.element = dist_array_element(vd->getType());
    return t;
  }
  if (!local) {
    if (Target rv = row_vector_variable(vd); rv.kind == Target::array_k) {
      return rv;
    }
  }
  t.kind = local ? Target::local_k : Target::outer_k;
  return t;
}

// ---- symbolic subscripts --------------------------------------------------------------------

/// True when every value of integer type `from` is a value of `to`, or a sign change between
/// types of different widths (ids are never negative: loaders reject them).
bool LoopLowering::preserves_value(QualType from, QualType to) const {
  if (to->isBooleanType()) {
    return from->isBooleanType();
  }
  const unsigned wf = ctx_.getIntWidth(from);
  const unsigned wt = ctx_.getIntWidth(to);
  if (wt != wf) {
    return wt > wf;
  }
  return from->isSignedIntegerOrEnumerationType() == to->isSignedIntegerOrEnumerationType();
}

/// The name of a loop-invariant symbol: how the loop names it (LoopSiteNames.h: rotor-cc writes
/// the symbol into the run_loop call at the loop, so `shift` of a helper's global, shadowed there
/// by a parameter `shift`, is `::shift`); empty when the loop cannot name it or another
/// declaration already has that name.
std::string LoopLowering::symbol_name(const ValueDecl* d) {
  const std::string& name = name_at_loop(d);
  if (name.empty()) {
    return name;
  }
  auto [it, fresh] = symbols_.emplace(name, d);
  return fresh || it->second == d ? name : "";
}

const std::string& LoopLowering::name_at_loop(const ValueDecl* d) const {
  auto [it, fresh] = names_at_loop_.emplace(d, std::string());
  if (fresh) {
    it->second = loop_site_name(d, loop_var_->getDeclContext());
  }
  return it->second;
}

Sym LoopLowering::eval(const Expr* e, Frame& f) {
  if (!e->isValueDependent() && !e->isTypeDependent()) {
    Expr::EvalResult r;
    if (e->EvaluateAsInt(r, ctx_)) {
      return Sym::number(r.Val.getInt().getExtValue());
    }
  }
  e = e->IgnoreParens();
  if (const auto* cast = dyn_cast<CastExpr>(e)) {
    // A conversion that may change the value (narrowing, or a sign change at equal width)
    // breaks the subscript's link to the key: `W(static_cast<uint8_t>(r.user), 0)`.
    const QualType from = cast->getSubExpr()->getType();
    const QualType to = cast->getType();
    if (from->isIntegerType() && to->isIntegerType() && !preserves_value(from, to)) {
      return Sym::unknown();
    }
    return eval(cast->getSubExpr(), f);
  }
  if (const auto* dre = dyn_cast<DeclRefExpr>(e)) {
    return eval_variable(dre, f);
  }
  if (const auto* me = dyn_cast<MemberExpr>(e)) {
    return eval_member(me, f);
  }
  if (const auto* ase = dyn_cast<ArraySubscriptExpr>(e)) {
    const int k = chain_key_index(ase, f); // `p->docs[d]->words[n]`, also in `sampling(d, n)`
    return k >= 0 ? Sym::key(k) : Sym::unknown();
  }
  if (const auto* op = dyn_cast<CXXOperatorCallExpr>(e)) {
    if (const int k = &f == body_frame_ ? derived_key(op) : -1; k >= 0) {
      return Sym::key(k); // `user_of[m]` in an integer-range loop
    }
    return eval_point_coordinate(op, f);
  }
  if (const auto* bo = dyn_cast<BinaryOperator>(e)) {
    return eval_binary(bo, f);
  }
  return Sym::unknown();
}

Sym LoopLowering::eval_variable(const DeclRefExpr* dre, Frame& f) {
  const ValueDecl* d = dre->getDecl();
  if (auto it = f.ints.find(d); it != f.ints.end()) {
    return mutated_.count(d) && !inductions_.count(d) && !scalar_definitions_.count(d)
               ? Sym::unknown()
               : it->second;
  }
  if (const auto* pvd = dyn_cast<ParmVarDecl>(d)) {
    if (auto it = f.args.find(pvd); it != f.args.end()) {
      return mutated_.count(d) ? Sym::unknown() : eval(it->second.first, *it->second.second);
    }
  }
  Target t = target_of(dre, f);
  if (t.kind == Target::binding_k) {
    return mutated_.count(d) ? Sym::unknown() : Sym::key(t.field);
  }
  if (t.kind == Target::outer_k && !mutated_.count(d) && d->getType()->isIntegerType()) {
    const std::string name = symbol_name(d);
    return name.empty() ? Sym::unknown() : Sym::symbol(name);
  }
  if (t.kind == Target::local_k && inductions_.count(d)) {
    return Sym::whole();
  }
  if (loop_.int_range && d == loop_var_ && &f == body_frame_) {
    return Sym::key(0); // an integer-range loop's index: key 0
  }
  if (out_.position_key >= 0 && d == loop_var_ && &f == body_frame_) {
    return Sym::key(out_.position_key); // an index loop's index used as an index: its key
  }
  return Sym::unknown();
}

Sym LoopLowering::eval_member(const MemberExpr* me, Frame& f) {
  Target base = target_of(me->getBase(), f);
  if (base.kind == Target::record_k) {
    if (const int k = key_of_member(me, f); k >= 0) {
      return Sym::key(k);
    }
  }
  // An integer member of the loop's own object: loop-invariant, since a write to it in the
  // loop blocks the loop (on_this).
  if (const auto* fd = dyn_cast<FieldDecl>(me->getMemberDecl());
      fd != nullptr && fd->getType()->isIntegerType() && names_loop_object(me->getBase(), f)) {
    const std::string name = symbol_name(fd);
    return name.empty() ? Sym::unknown() : Sym::symbol(name);
  }
  return Sym::unknown();
}

/// `p[d]` on an IndexSpace loop's point with a constant `d`: key field d.
Sym LoopLowering::eval_point_coordinate(const CXXOperatorCallExpr* op, Frame& f) {
  if (op->getOperator() == OO_Subscript && op->getNumArgs() == 2 &&
      target_of(op->getArg(0), f).kind == Target::point_k) {
    Sym d = eval(op->getArg(1), f);
    if (d.kind == Subscript::Kind::constant && d.offset.is_numeric() && d.offset.value >= 0 &&
        d.offset.value < out_.index_rank) {
      return Sym::key(static_cast<int>(d.offset.value));
    }
  }
  return Sym::unknown();
}

Sym LoopLowering::eval_binary(const BinaryOperator* bo, Frame& f) {
  Sym a = eval(bo->getLHS(), f);
  Sym b = eval(bo->getRHS(), f);
  using K = Subscript::Kind;
  if (a.kind == K::unknown || b.kind == K::unknown) {
    return Sym::unknown();
  }
  if (bo->getType()->isUnsignedIntegerType()) {
    // `r.a + 0xFFFFFFFFu` wraps: it is r.a - 1, not r.a + 4294967295.
    const std::uint64_t half = std::uint64_t{1} << (ctx_.getIntWidth(bo->getType()) - 1);
    for (const Sym* x : {&a, &b}) {
      if (x->offset.value < 0 || static_cast<std::uint64_t>(x->offset.value) >= half) {
        return Sym::unknown();
      }
    }
  }
  const bool add = bo->getOpcode() == BO_Add;
  const bool sub = bo->getOpcode() == BO_Sub;
  if (!add && !sub) {
    if (a.kind != K::key && b.kind != K::key && (a.kind == K::whole || b.kind == K::whole)) {
      return Sym::whole();
    }
    return Sym::unknown();
  }
  if (a.kind == K::whole || b.kind == K::whole) {
    return Sym::whole();
  }
  Sym out;
  if (a.kind == K::constant && b.kind == K::constant) {
    out.kind = K::constant;
  } else if (a.kind == K::key && b.kind == K::constant) {
    out.kind = K::key;
    out.field = a.field;
  } else if (add && a.kind == K::constant && b.kind == K::key) {
    out.kind = K::key;
    out.field = b.field;
    std::swap(a, b);
  } else {
    return Sym::unknown();
  }
  if (!add_offsets(a.offset, b.offset, add ? 1 : -1, out.offset)) {
    return Sym::unknown();
  }
  return out;
}

// ---- pre-scan: what the loop writes ------------------------------------------------------------

void LoopLowering::prescan(const Stmt* s, Frame& f) {
  if (s == nullptr) {
    return;
  }
  if (const auto* fs = dyn_cast<ForStmt>(s)) {
    if (const auto* ds = dyn_cast_or_null<DeclStmt>(fs->getInit())) {
      for (const Decl* d : ds->decls()) {
        if (const auto* vd = dyn_cast<VarDecl>(d)) {
          inductions_.insert(vd);
        }
      }
    }
  }
  if (const auto* ds = dyn_cast<DeclStmt>(s)) {
    bind_record_references(ds, f);
  }
  if (const auto* dre = dyn_cast<DeclRefExpr>(s)) {
    const UseInfo u = classify(dre, f);
    if (u.use != Use::read && u.use != Use::alias_init) {
      mutated_.insert(dre->getDecl());
    }
  }
  if (const auto* me = dyn_cast<MemberExpr>(s)) {
    const auto* fd = dyn_cast<FieldDecl>(me->getMemberDecl());
    if (fd != nullptr && target_of(me->getBase(), f).kind == Target::record_k) {
      const UseInfo u = classify(me, f);
      if (u.use != Use::read && u.use != Use::alias_init) {
        written_fields_.insert(fd);
      }
    }
  }
  for (const Stmt* child : s->children()) {
    prescan(child, f);
  }
}

/// An index loop's `const R& r = v[i];` / `auto& r = v[i];`: `r` is the record (a reference is
/// never rebound, so every use of `r` is a use of the record).
void LoopLowering::bind_record_references(const DeclStmt* ds, Frame& f) {
  for (const Decl* d : ds->decls()) {
    const auto* vd = dyn_cast<VarDecl>(d);
    if (vd != nullptr && vd->getType()->isReferenceType() && vd->getInit() != nullptr &&
        is_site_element(loop_, vd->getInit()->IgnoreParenImpCasts())) {
      f.env[vd] = record_target();
    }
  }
}

// ---- the walk ---------------------------------------------------------------------------------

void LoopLowering::note_array(const Target& t) {
  if (out_.model.array(t.array) == nullptr) {
    out_.model.arrays.push_back(
        {t.array, t.rank, t.element, t.row_vector && t.eigen == 0, t.row_vector});
  }
}

int LoopLowering::add_access(const Target& t, bool write, std::vector<Subscript> subs,
                             const Expr* at) {
  note_array(t);
  while (static_cast<int>(subs.size()) < t.rank) {
    subs.push_back(Subscript::whole());
  }
  analysis::Access a;
  a.array = t.array;
  a.write = write;
  a.subscripts = std::move(subs);
  a.loc = loc_of(at->getBeginLoc());
  a.text = text_of(at);
  out_.model.accesses.push_back(std::move(a));
  return static_cast<int>(out_.model.accesses.size()) - 1;
}

Subscript to_subscript(const Sym& s, std::string text) {
  switch (s.kind) {
  case Subscript::Kind::constant:
    return Subscript::constant(s.offset, std::move(text));
  case Subscript::Kind::key:
    return Subscript::key(s.field, s.offset, std::move(text));
  case Subscript::Kind::whole:
    return Subscript::whole(std::move(text));
  default:
    return Subscript::unknown(std::move(text));
  }
}

bool LoopLowering::analysable_callee(const FunctionDecl* fd) const {
  if (fd == nullptr) {
    return false;
  }
  const FunctionDecl* def = nullptr;
  if (!fd->hasBody(def) || def == nullptr) {
    return false;
  }
  return !sm_.isInSystemHeader(def->getLocation()) && !is_rotor_decl(def);
}

void LoopLowering::on_array_use(const Expr* use, const Target& t, Frame& f) {
  // Find the access form: W(i, j), W[i], W.row(i), or another member call.
  const Stmt* p = f.parents->getParent(use);
  while (p != nullptr &&
         (isa<ParenExpr>(p) || (isa<ImplicitCastExpr>(p) &&
                                cast<ImplicitCastExpr>(p)->getCastKind() != CK_LValueToRValue))) {
    use = cast<Expr>(p);
    p = f.parents->getParent(p);
  }
  if (t.row_vector) {
    on_row_vector_use(use, p, t, f);
    return;
  }
  std::vector<Subscript> subs;
  const Expr* access = nullptr;
  if (const auto* op = dyn_cast_or_null<CXXOperatorCallExpr>(p);
      op != nullptr && op->getNumArgs() > 0 && op->getArg(0) == use &&
      (op->getOperator() == OO_Call || op->getOperator() == OO_Subscript)) {
    for (unsigned i = 1; i < op->getNumArgs(); ++i) {
      subs.push_back(to_subscript(eval(op->getArg(i), f), text_of(op->getArg(i))));
    }
    access = op;
  } else if (const auto* me = dyn_cast_or_null<MemberExpr>(p)) {
    const auto* call = dyn_cast_or_null<CXXMemberCallExpr>(f.parents->getParent(me));
    if (name_row_access(me, call, f, subs)) {
      access = call;
    } else if (on_array_method(me, call, t)) {
      return;
    }
  }
  if (access == nullptr) {
    on_whole_array_use(use, p, t, f);
    return;
  }
  record_array_access(access, std::move(subs), t, f);
}

/// `W.row(i)`: the subscripts (i, whole).
bool LoopLowering::name_row_access(const MemberExpr* me, const CXXMemberCallExpr* call, Frame& f,
                                   std::vector<Subscript>& subs) {
  if (me->getMemberNameInfo().getAsString() != "row" || call == nullptr ||
      call->getNumArgs() != 1) {
    return false;
  }
  subs.push_back(to_subscript(eval(call->getArg(0), f), text_of(call->getArg(0))));
  subs.push_back(Subscript::whole());
  return true;
}

/// A member of a DistArray other than `row(i)`: a shape query, `data()` (a pointer taken), or
/// another method (the whole array, written unless the method is const). False when `me` is a
/// member that is not called (the array itself is then the use).
bool LoopLowering::on_array_method(const MemberExpr* me, const CXXMemberCallExpr* call,
                                   const Target& t) {
  const std::string name = me->getMemberNameInfo().getAsString();
  if (name == "extent" || name == "shape" || name == "rows" || name == "cols" || name == "size") {
    note_array(t);
    return true;
  }
  if (name == "data") {
    note_array(t);
    out_.used_whole.push_back(t.array);
    escape(analysis::Escape::Kind::pointer_taken,
           t.array + ".data() takes a pointer into " + t.array, me->getBeginLoc());
    return true;
  }
  if (call == nullptr) {
    return false;
  }
  out_.used_whole.push_back(t.array);
  const auto* md = call->getMethodDecl();
  const bool write = md == nullptr || !md->isConst();
  add_access(t, write, {}, call);
  return true;
}

/// The array itself is used: passed to a function, copied, bound to a reference.
void LoopLowering::on_whole_array_use(const Expr* use, const Stmt* p, const Target& t, Frame& f) {
  out_.used_whole.push_back(t.array);
  if (const auto* call = dyn_cast_or_null<CallExpr>(p)) {
    if (analysable_callee(call->getDirectCallee())) {
      note_array(t);
      return; // the callee's accesses are recorded when it is analysed
    }
    const UseInfo u = classify(use, f);
    if (u.use != Use::read) {
      const FunctionDecl* fd = call->getDirectCallee();
      escape(analysis::Escape::Kind::unknown_call,
             t.array + " is passed to '" + (fd ? fd->getNameAsString() : text_of(call)) +
                 "', whose body is not visible",
             use->getBeginLoc());
      add_access(t, true, {}, use);
      return;
    }
  }
  const UseInfo u = classify(use, f);
  if (u.use == Use::address) {
    escape(analysis::Escape::Kind::pointer_taken, "the address of " + t.array + " is taken",
           use->getBeginLoc());
  }
  add_access(t, u.use != Use::read && u.use != Use::alias_init, {}, use);
}

/// An element or row access `W(i, j)`, `W[i]`, `W.row(i)`: recorded; a local initialised by it
/// (`auto w = W.row(u)`) becomes an alias of the row.
void LoopLowering::record_array_access(const Expr* access, std::vector<Subscript> subs,
                                       const Target& t, Frame& f) {
  const UseInfo u = classify(access, f);
  const int index =
      add_access(t, u.use != Use::read && u.use != Use::alias_init, std::move(subs), access);
  if (u.use == Use::address) {
    escape(analysis::Escape::Kind::pointer_taken,
           "a pointer into " + t.array + " is taken (" + text_of(access) + ")",
           access->getBeginLoc());
  }
  if (u.use == Use::alias_init && u.var != nullptr && !u.var->getType()->isArithmeticType()) {
    Target row;
    row.kind = Target::row_k;
    row.array = t.array;
    row.access = index;
    f.env[u.var] = row;
  }
}

/// An outside variable named in the loop or a function it calls: a reduction, a read, or a
/// write that blocks.
void LoopLowering::on_outer_use(const DeclRefExpr* dre, const Target& t, Frame& f) {
  const auto* vd = dyn_cast_or_null<VarDecl>(t.decl);
  if (vd == nullptr) {
    return;
  }
  if (t.decl == range_decl_) {
    on_dataset_use(dre, f);
    return;
  }
  const bool named_here = &f == body_frame_ || dre->getDecl() != vd;
  if (!named_here && (is_accumulator(vd->getType()) || vd->getType()->isArithmeticType()) &&
      classify(dre, f).use == Use::plus_minus) {
    escape(analysis::Escape::Kind::outside_write,
           "'" + vd->getNameAsString() + "' is changed by += / -= in '" +
               (f.fn != nullptr ? f.fn->getNameAsString() : std::string("a lambda")) +
               "', outside the loop's text (Rotor combines a reduction only where the loop "
               "names it)",
           dre->getBeginLoc());
    return;
  }
  if (is_accumulator(vd->getType())) {
    if (!reduction_loc_.count(vd)) {
      reduction_order_.push_back(vd);
      reduction_loc_[vd] = dre->getBeginLoc();
    }
    accumulators_.insert(vd);
    return;
  }
  const bool direct = dre->getDecl() == vd;
  // Passed by reference to a function analysed below: its uses there decide.
  const Stmt* p = f.parents->getParent(dre);
  while (p != nullptr && isa<ImplicitCastExpr, ParenExpr>(p)) {
    p = f.parents->getParent(p);
  }
  if (const auto* call = dyn_cast_or_null<CallExpr>(p);
      call != nullptr && !isa<CXXOperatorCallExpr>(call) &&
      analysable_callee(call->getDirectCallee())) {
    const FunctionDecl* callee = call->getDirectCallee();
    unsigned i = 0;
    while (i < call->getNumArgs() && call->getArg(i)->IgnoreParenImpCasts() != dre) {
      ++i;
    }
    if (i < callee->getNumParams() && callee->getParamDecl(i)->getType()->isReferenceType()) {
      return; // bound to the callee's parameter: its uses there decide
    }
    if (direct) {
      outer_read_.emplace(vd, dre->getBeginLoc()); // its value is read here
    }
    return;
  }
  if (calls_object_method(dre, f)) {
    outer_read_.emplace(vd, dre->getBeginLoc()); // the method's uses of members decide
    return;
  }
  const UseInfo u = classify(dre, f);
  if (u.use == Use::plus_minus && vd->getType()->isArithmeticType()) {
    if (!reduction_loc_.count(vd)) {
      reduction_order_.push_back(vd);
      reduction_loc_[vd] = dre->getBeginLoc();
    }
  } else if (u.use == Use::read || u.use == Use::alias_init) {
    if (!dre->getType()->isFunctionType()) { // also through a helper's reference parameter
      outer_read_.emplace(vd, dre->getBeginLoc());
    }
  } else if (u.use == Use::address && !is_nonconst_ref(vd->getType()) &&
             vd->getType().isConstQualified()) {
    outer_read_.emplace(vd, dre->getBeginLoc());
  } else {
    escape(analysis::Escape::Kind::outside_write,
           "'" + vd->getNameAsString() + "' is declared outside the loop and written in it",
           dre->getBeginLoc(), outside_write_fix(vd), vd->getType()->isArithmeticType());
  }
}

namespace {

/// `x` or `cfg.lr` (fields, no `->`) on a variable that is not a reference: what a reference bound
/// to it names is that variable's own storage, never an array element.
bool names_plain_storage(const Expr* init) {
  const Expr* e = init->IgnoreParenImpCasts();
  while (const auto* me = dyn_cast<MemberExpr>(e)) {
    if (me->isArrow() || !isa<FieldDecl>(me->getMemberDecl())) {
      return false;
    }
    e = me->getBase()->IgnoreParenImpCasts();
  }
  const auto* dre = dyn_cast<DeclRefExpr>(e);
  const auto* vd = dre != nullptr ? dyn_cast<VarDecl>(dre->getDecl()) : nullptr;
  return vd != nullptr && !vd->getType()->isReferenceType() && !vd->getType()->isPointerType() &&
         (vd->getType()->isArithmeticType() || vd->getType()->isStructureOrClassType());
}

} // namespace

/// A reference declared outside the loop that may point into an array the loop writes (`auto& row0
/// = nw[0]`, `const float& x = A(0, 0)`, `auto& W2 = W` read only): Rotor does not follow it, so
/// the body could read an element another worker or rank is changing (or, for a staged table, the
/// stale table). Uses of such an arithmetic reference (unless bound to a plain variable or its
/// field, `const float& lr = cfg.lr`) or of a plain-container reference the loop does not bind
/// (settle_outer_references) count as reads through an outside pointer: they block a loop that
/// writes. A DistArray reference is bound like the DistArray (the runtime sees the object).
void LoopLowering::note_outer_reference(const DeclRefExpr* dre, Frame& f) {
  const auto* vd = dyn_cast<VarDecl>(dre->getDecl());
  if (vd != nullptr && is_eigen_view_type(vd->getType()) && !inside_loop(vd->getLocation()) &&
      (f.fn == nullptr || vd->getParentFunctionOrMethod() != f.fn)) {
    // An Eigen view from outside the loop (`Eigen::Map<Table> alias(T.data(), ...)`, an
    // `Eigen::Ref` parameter): it may view an array the loop writes, like a reference.
    outside_references_.emplace_back(vd, dre->getBeginLoc());
    return;
  }
  if (vd == nullptr || isa<ParmVarDecl>(vd) || !vd->getType()->isReferenceType() ||
      vd == range_decl_ || inside_loop(vd->getLocation()) ||
      (f.fn != nullptr && vd->getParentFunctionOrMethod() == f.fn)) {
    return;
  }
  const QualType pointee = vd->getType().getNonReferenceType();
  const bool arithmetic = pointee->isArithmeticType() &&
                          (vd->getInit() == nullptr || !names_plain_storage(vd->getInit()));
  if (arithmetic || container_target(pointee).kind == Target::array_k) {
    outside_references_.emplace_back(vd, dre->getBeginLoc());
  }
}

/// After the walk: the outside references that may alias an array the loop writes (see
/// note_outer_reference) become reads through outside pointers, unless they name a container the
/// loop writes (it is bound, or its misuse blocks: the runtime sees the memory of what it binds).
void LoopLowering::settle_outer_references() {
  const auto& accesses = out_.model.accesses;
  for (const auto& [vd, loc] : outside_references_) {
    const std::string name = vd->getNameAsString();
    const bool bound = std::any_of(accesses.begin(), accesses.end(),
                                   [&](const auto& a) { return a.array == name && a.write; });
    if (!bound) {
      outside_pointer_reads_.emplace_back("'" + name + "', a reference", loc);
    }
  }
}

/// A loop over records (a vector or a Dataset) that writes them: an outside name of another
/// vector or Dataset of the same records or of a record reference (`auto& alias = tokens;`, a
/// parameter `const std::vector<Token>& other` the caller may pass `tokens` as) may read records
/// other workers or ranks write. Noted here, it blocks such a loop (block_unsafe_leftovers).
void LoopLowering::note_record_alias(const DeclRefExpr* dre, Frame& f) {
  const auto* vd = dyn_cast<VarDecl>(dre->getDecl());
  if (out_.index_rank != 0 || vd == nullptr || vd == range_decl_ ||
      inside_loop(vd->getLocation()) ||
      (f.fn != nullptr && vd->getParentFunctionOrMethod() == f.fn)) {
    return;
  }
  const QualType type = vd->getType().getNonReferenceType();
  const RecordDecl* element = out_.over_vector ? vector_record(ctx_, type) : dataset_record(type);
  const bool record_reference =
      vd->getType()->isReferenceType() && type->getAsRecordDecl() == record_;
  if ((element != nullptr && element == record_) || record_reference) {
    record_alias_reads_.emplace_back(vd->getNameAsString(), dre->getBeginLoc());
  }
}

void LoopLowering::on_declref(const DeclRefExpr* dre, Frame& f) {
  note_outer_reference(dre, f);
  note_record_alias(dre, f);
  check_inner_index_use(dre, f);
  if (const Use use = classify(dre, f).use; loop_.index_loop && dre->getDecl() == loop_var_ &&
                                            use != Use::read &&
                                            use != Use::alias_init) { // `auto j = i;` copies it
    error(dre->getBeginLoc(), "the loop's index '" + loop_var_->getNameAsString() +
                                  "' is written or aliased in the loop body (an index loop's "
                                  "index may only be read)");
  }
  if (privates_.count(dre->getDecl()) && !inside_loop(dre->getLocation())) {
    escape(analysis::Escape::Kind::outside_write,
           "'" + dre->getDecl()->getNameAsString() + "' has a copy per worker but is used in '" +
               (f.fn != nullptr ? f.fn->getNameAsString() : std::string("a lambda")) +
               "', outside the loop's text (only the loop's own text sees the worker's copy)",
           dre->getBeginLoc());
  }
  const Target t = target_of(dre, f);
  if (&f == body_frame_ && t.decl != nullptr && t.kind != Target::local_k) {
    named_in_body_.insert(t.decl);
  }
  if (&f == body_frame_ && t.kind == Target::array_k) {
    if (const auto* vd = dyn_cast<VarDecl>(dre->getDecl())) {
      named_in_body_.insert(vd);
    }
  }
  switch (t.kind) {
  case Target::array_k:
    if (&f != body_frame_ && dre->getDecl() == t.decl && out_.model.is_buffered(t.array)) {
      escape(analysis::Escape::Kind::outside_write,
             "buffered array '" + t.array + "' is used by its own name in '" +
                 (f.fn != nullptr ? f.fn->getNameAsString() : std::string("a lambda")) +
                 "' (Rotor gives each worker its copy only where the loop names it)",
             dre->getBeginLoc());
    }
    on_array_use(dre, t, f);
    break;
  case Target::row_k: {
    const UseInfo u = classify(dre, f);
    if (u.use == Use::address) {
      escape(analysis::Escape::Kind::pointer_taken,
             "a pointer into " + t.array + " is taken through '" + text_of(dre) + "'",
             dre->getBeginLoc());
    }
    if (u.use != Use::read && u.use != Use::alias_init) {
      out_.model.accesses[static_cast<std::size_t>(t.access)].write = true;
    }
    if (u.use == Use::alias_init && u.var != nullptr) {
      f.env[u.var] = t; // a copy of the map still points into the array
    }
    break;
  }
  case Target::outer_k:
    on_outer_use(dre, t, f);
    break;
  default:
    break;
  }
}

void LoopLowering::on_this(const CXXThisExpr* te, Frame& f) {
  const Target t = target_of(te, f);
  if (t.kind != Target::outer_k) {
    return;
  }
  const UseInfo u = classify(te, f);
  if (u.use == Use::read || u.use == Use::alias_init) {
    return;
  }
  if (const auto* me = dyn_cast_or_null<MemberExpr>(f.parents->getParent(te));
      me != nullptr && range_field_ != nullptr && me->getMemberDecl() == range_field_) {
    return; // the member vector the loop runs over: on_range_member_use decides
  }
  if (calls_analysed_method(te, f) || calls_object_method(te, f)) {
    return; // the method's own accesses to members are analysed (and reported) in its body
  }
  std::string name = t.decl != nullptr ? t.decl->getNameAsString() : "*this";
  if (t.decl == nullptr) {
    if (const auto* me = dyn_cast_or_null<MemberExpr>(f.parents->getParent(te))) {
      name = me->getMemberDecl()->getNameAsString(); // a member of the loop's own object
    }
  }
  escape(analysis::Escape::Kind::outside_write,
         "'" + name + "' is declared outside the loop and written in it", te->getBeginLoc());
}

/// A use of the vector a loop runs over that may change its size: any write other than through
/// an element accessor (`v[j] = ...`, `v.at(j).x = ...` change elements, not the size).
bool LoopLowering::may_resize(const Expr* use, const Stmt* parent, Frame& f) const {
  if (classify(use, f).use == Use::read) {
    return false;
  }
  if (const auto* op = dyn_cast_or_null<CXXOperatorCallExpr>(parent)) {
    return op->getOperator() != OO_Subscript;
  }
  if (const auto* me = dyn_cast_or_null<MemberExpr>(parent)) {
    const auto* md = dyn_cast<CXXMethodDecl>(me->getMemberDecl());
    return md == nullptr || !is_element_accessor(md);
  }
  return true;
}

void LoopLowering::on_dataset_use(const DeclRefExpr* dre, Frame& f) {
  const Stmt* p = f.parents->getParent(dre);
  while (p != nullptr && isa<ImplicitCastExpr, ParenExpr>(p)) {
    p = f.parents->getParent(p);
  }
  if (const auto* e = dyn_cast_or_null<Expr>(p); e != nullptr && is_site_element(loop_, e)) {
    return; // `v[i]`: the iteration's own record
  }
  if (out_.over_vector && may_resize(dre, p, f)) {
    error(dre->getBeginLoc(), "the loop may change the size of '" +
                                  dre->getDecl()->getNameAsString() +
                                  "', the std::vector it runs over ('" +
                                  text_of(p != nullptr && isa<Expr>(p) ? p : dre) +
                                  "'): Rotor computes the iterations before the loop");
    return;
  }
  if (const auto* me = dyn_cast_or_null<MemberExpr>(p)) {
    const std::string name = me->getMemberNameInfo().getAsString();
    if (name == "size" || name == "empty") {
      return;
    }
  }
  const std::string name = "'" + dre->getDecl()->getNameAsString() + "'";
  escape(analysis::Escape::Kind::outside_write,
         (out_.over_vector ? "the vector the loop runs over, " + name + ","
                           : "the loop's own dataset " + name) +
             " is used inside the loop ('" + text_of(p != nullptr && isa<Expr>(p) ? p : dre) + "')",
         dre->getBeginLoc());
}

void LoopLowering::on_decl(const VarDecl* vd, Frame& f) {
  if (!vd->getType()->isIntegerType() || vd->getInit() == nullptr) {
    return;
  }
  if (mutated_.count(vd) || inductions_.count(vd)) {
    f.ints[vd] = inductions_.count(vd) ? Sym::whole() : Sym::unknown();
    return;
  }
  f.ints[vd] = eval(vd->getInit(), f);
}

void LoopLowering::on_call(const CallExpr* call, Frame& f) {
  const FunctionDecl* fd = call->getDirectCallee();
  bool analyse = false;
  if (!check_call(call, fd, f, analyse) || !analyse) {
    return;
  }
  const FunctionDecl* def = nullptr;
  fd->hasBody(def);
  // A lambda written inside the loop was walked where it is written.
  if (const auto* md = dyn_cast<CXXMethodDecl>(def);
      md != nullptr && md->getParent()->isLambda() && inside_loop(md->getLocation())) {
    return;
  }
  Frame callee;
  callee.fn = def;
  callee.caller = &f;
  callee.call = call;
  unsigned first = 0;
  if (const auto* op = dyn_cast<CXXOperatorCallExpr>(call);
      op != nullptr && isa<CXXMethodDecl>(def)) {
    callee.this_object = op->getArg(0);
    first = 1;
  } else if (const auto* mc = dyn_cast<CXXMemberCallExpr>(call)) {
    callee.this_object = mc->getImplicitObjectArgument();
  }
  bind_arguments(callee, def, call->getArgs() + first, call->getNumArgs() - first, f);
  analyse_callee(callee, call->getBeginLoc());
}

/// A local of a user class runs its destructor at the end of the iteration: analysed like a call
/// on the local.
void LoopLowering::on_destroy(const VarDecl* vd, Frame& f) {
  const CXXRecordDecl* rd = vd->getType()->getAsCXXRecordDecl();
  if (rd == nullptr || !rd->hasDefinition() || vd->getType()->isReferenceType()) {
    return;
  }
  const CXXDestructorDecl* dd = rd->getDestructor();
  if (dd == nullptr || !dd->isUserProvided()) {
    return;
  }
  const FunctionDecl* def = nullptr;
  if (!dd->hasBody(def) || def == nullptr || !analysable_callee(def)) {
    if (!sm_.isInSystemHeader(dd->getLocation()) && !is_rotor_decl(dd)) {
      escape(analysis::Escape::Kind::unknown_call,
             "destructor of '" + rd->getNameAsString() + not_visible(dd), vd->getLocation());
    }
    return;
  }
  Frame callee;
  callee.fn = def;
  callee.caller = &f;
  analyse_callee(callee, vd->getLocation());
}

/// What would make a write to outside variable `vd` sound: a reduction for a scalar; for
/// anything else, what Rotor needs (a DistArray it can index), never a reduction.
std::string LoopLowering::outside_write_fix(const VarDecl* vd) const {
  const std::string name = "'" + vd->getNameAsString() + "'";
  if (vd->getType()->isArithmeticType()) {
    return "make " + name +
           " a reduction (change it only with += or -=, or use a "
           "rotor::Accumulator<T, rotor::Max> or <T, rotor::Min> for a max or min), or declare it "
           "inside the loop body if each record needs its own";
  }
  return "declare " + name +
         " inside the loop body if each record needs its own; state shared "
         "between records must be a rotor::DistArray indexed by the records' keys, so that Rotor "
         "sees which elements each record writes (plain containers, pointers and objects are not "
         "parameter arrays yet)";
}

/// A user constructor runs code too: analysed like a call (its members are the new object's).
void LoopLowering::on_construct(const CXXConstructExpr* ctor, Frame& f) {
  const CXXConstructorDecl* cd = ctor->getConstructor();
  const FunctionDecl* def = nullptr;
  if (cd == nullptr || cd->isTrivial() || !cd->hasBody(def) || def == nullptr ||
      !analysable_callee(def)) {
    if (cd != nullptr && !cd->isTrivial() && !cd->isDefaulted() && !analysable_callee(cd) &&
        !sm_.isInSystemHeader(cd->getLocation()) && !is_rotor_decl(cd)) {
      escape(analysis::Escape::Kind::unknown_call,
             "constructor of '" + cd->getParent()->getNameAsString() + not_visible(cd),
             ctor->getBeginLoc());
    }
    return;
  }
  Frame callee;
  callee.fn = def;
  callee.caller = &f;
  bind_arguments(callee, def, ctor->getArgs(), ctor->getNumArgs(), f);
  analyse_callee(callee, ctor->getBeginLoc());
}

void LoopLowering::analyse_callee(Frame& callee, SourceLocation at) {
  const FunctionDecl* def = callee.fn;
  if (std::find(stack_.begin(), stack_.end(), def) != stack_.end()) {
    escape(analysis::Escape::Kind::unknown_call,
           "recursive call to '" + def->getNameAsString() + "'", at);
    return;
  }
  if (stack_.size() > 16) {
    escape(analysis::Escape::Kind::unknown_call,
           "calls nested too deeply at '" + def->getNameAsString() + "'", at);
    return;
  }
  callee.parents = std::make_unique<ParentMap>(def->getBody());
  stack_.push_back(def);
  if (const auto* cd = dyn_cast<CXXConstructorDecl>(def)) {
    for (const CXXCtorInitializer* init : cd->inits()) {
      if (init->isWritten()) {
        callee.parents->addStmt(init->getInit());
        prescan(init->getInit(), callee);
        walk(init->getInit(), callee);
      }
    }
  }
  prescan(def->getBody(), callee);
  walk(def->getBody(), callee);
  stack_.pop_back();
}

void LoopLowering::bind_arguments(Frame& callee, const FunctionDecl* def, const Expr* const* args,
                                  unsigned count, Frame& f) {
  for (unsigned i = 0; i < count && i < def->getNumParams(); ++i) {
    const ParmVarDecl* param = def->getParamDecl(i);
    const Expr* arg = args[i];
    if (param->getType()->isReferenceType() || is_dist_array(param->getType())) {
      callee.args[param] = {arg, &f};
    } else if (param->getType()->isIntegerType()) {
      callee.ints[param] = eval(arg, f);
      callee.values[param] = arg;
    } else if (param->getType()->isPointerType()) {
      callee.pointees[param] = pointee_of(arg, f);
    } else {
      Target t = target_of(arg, f);
      if (t.kind == Target::row_k || t.kind == Target::record_k || t.kind == Target::point_k) {
        callee.args[param] = {arg, &f}; // a copy of a row map still points into the array
      }
    }
  }
}

void LoopLowering::walk(const Stmt* s, Frame& f) {
  if (s == nullptr) {
    return;
  }
  if (isa<UnaryExprOrTypeTraitExpr>(s)) {
    return; // sizeof / alignof: unevaluated
  }
  if (const auto* e = dyn_cast<Expr>(s); e != nullptr && is_chain_read(e, f)) {
    return; // noted by the inspector, checked by run_loop (LoweringRagged.cpp)
  }
  if (const auto* dre = dyn_cast<DeclRefExpr>(s)) {
    on_declref(dre, f);
    return;
  }
  if (const auto* te = dyn_cast<CXXThisExpr>(s)) {
    on_this(te, f);
    return;
  }
  if (const auto* me = dyn_cast<MemberExpr>(s)) {
    if (range_field_ != nullptr && me->getMemberDecl() == range_field_) {
      on_range_member_use(me, f);
    } else {
      note_member_record_alias(me);
    }
    if (const Target t = target_of(me, f); t.kind == Target::array_k) {
      if (&f == body_frame_ && t.decl != nullptr) {
        named_in_body_.insert(t.decl);
      }
      on_array_use(me, t, f); // a DistArray member (of `*this` or of an outside object)
      return;
    }
    if (me->isArrow() && !isa<CXXThisExpr>(me->getBase()->IgnoreParenImpCasts())) {
      check_pointer_read(me->getBase(), s, f);
    }
    check_reference_member_read(me, f);
  }
  check_write_site(s, f);
  if (const auto* uo = dyn_cast<UnaryOperator>(s); uo != nullptr && uo->getOpcode() == UO_Deref) {
    check_pointer_read(uo->getSubExpr(), s, f);
  }
  if (const auto* ase = dyn_cast<ArraySubscriptExpr>(s)) {
    const auto* decay = dyn_cast<ImplicitCastExpr>(ase->getBase()->IgnoreParens());
    if (decay == nullptr || decay->getCastKind() != CK_ArrayToPointerDecay) {
      check_pointer_read(ase->getBase(), s, f);
    }
  }
  if (const auto* ds = dyn_cast<DeclStmt>(s)) {
    for (const Decl* d : ds->decls()) {
      if (const auto* vd = dyn_cast<VarDecl>(d)) {
        if (vd->getType()->isReferenceType() && is_dist_array(vd->getType()) &&
            vd->getInit() != nullptr) {
          // `auto& M = W;`: M names W.
          const Target t = target_of(vd->getInit(), f);
          if (t.kind == Target::array_k) {
            f.env[vd] = t;
            if (&f == body_frame_ && t.decl != nullptr) {
              named_in_body_.insert(t.decl);
            }
            continue;
          }
        }
        walk(vd->getInit(), f);
        on_decl(vd, f);
        note_binding(vd, f);
        check_static(vd, f);
        on_destroy(vd, f);
      }
    }
    return;
  }
  for (const Stmt* child : s->children()) {
    walk(child, f);
  }
  if (const auto* call = dyn_cast<CallExpr>(s)) {
    on_call(call, f);
  } else if (const auto* ctor = dyn_cast<CXXConstructExpr>(s)) {
    on_construct(ctor, f);
  } else if (const auto* bo = dyn_cast<BinaryOperator>(s); bo != nullptr && &f == body_frame_) {
    on_scalar_definition(bo, f);
  }
}

/// A read through a pointer that comes from outside the loop (a raw pointer parameter, a global,
/// a pointer member) may read an element the loop writes under another name; it blocks when the
/// loop writes any array or record (decided at the end of run()).
void LoopLowering::check_pointer_read(const Expr* pointer, const Stmt* at, Frame& f) {
  if (calls_method_of_object(pointer, at, f)) {
    return; // analysed in the method (LoweringObjectTables.cpp)
  }
  const Target t = pointee_of(pointer, f);
  if (t.kind == Target::unknown_k && t.from_outside) {
    outside_pointer_reads_.emplace_back("'" + describe(t) + "', a pointer", at->getBeginLoc());
  }
}

/// A static (or thread_local) variable in the loop or a function it calls keeps state between
/// iterations, unless it is a constant.
void LoopLowering::check_static(const VarDecl* vd, Frame& f) {
  (void)f;
  if (!vd->isStaticLocal()) {
    return;
  }
  const bool constant = vd->getType().isConstQualified() && vd->getInit() != nullptr &&
                        vd->getInit()->isConstantInitializer(ctx_, false);
  if (!constant) {
    escape(analysis::Escape::Kind::outside_write,
           "static variable '" + vd->getNameAsString() +
               "' keeps its value from one iteration to the next",
           vd->getLocation());
  }
}

/// Finds `continue`/`break` of this loop and `return`/`goto` out of it.
void LoopLowering::control_flow(const Stmt* s, int loops, int switches, int lambdas) {
  if (s == nullptr) {
    return;
  }
  if (isa<LambdaExpr>(s)) {
    ++lambdas;
  }
  if (lambdas == 0) {
    if (isa<ContinueStmt>(s) && loops == 0) {
      out_.continues.push_back(s->getBeginLoc());
    } else if (isa<BreakStmt>(s) && loops == 0 && switches == 0) {
      out_.breaks.push_back(s->getBeginLoc());
    } else if (isa<ReturnStmt>(s)) {
      error(s->getBeginLoc(), "'return' cannot leave a '#pragma rotor parallel_for' loop");
    } else if (isa<GotoStmt, IndirectGotoStmt>(s)) {
      error(s->getBeginLoc(), "'goto' cannot leave a '#pragma rotor parallel_for' loop");
    }
  }
  const bool is_loop = isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(s);
  const bool is_switch = isa<SwitchStmt>(s);
  for (const Stmt* child : s->children()) {
    control_flow(child, loops + (is_loop ? 1 : 0), switches + (is_switch ? 1 : 0), lambdas);
  }
}

/// The member function the loop is written in (through lambdas written in it), or nullptr.
const CXXMethodDecl* LoopLowering::method_of(const DeclContext* dc) {
  for (; dc != nullptr; dc = dc->getParent()) {
    const auto* md = dyn_cast<CXXMethodDecl>(dc);
    if (md == nullptr) {
      if (isa<FunctionDecl>(dc)) {
        return nullptr;
      }
      continue;
    }
    if (md->getParent()->isLambda()) {
      continue;
    }
    return md->isStatic() ? nullptr : md;
  }
  return nullptr;
}

/// What can only be judged once the whole body is seen: reads through outside pointers (they
/// matter when the loop writes an array or its records) and floating-point sums in an ordered
/// loop (combined in worker order, not in the loop's order).
void LoopLowering::block_unsafe_leftovers() {
  const auto& m = out_.model;
  const bool writes =
      out_.writes_records || std::any_of(m.accesses.begin(), m.accesses.end(),
                                         [](const analysis::Access& a) { return a.write; });
  if (out_.writes_records && !record_alias_reads_.empty()) {
    const auto& [name, loc] = record_alias_reads_.front();
    escape(analysis::Escape::Kind::pointer_taken,
           "reads '" + name + "', which may name " +
               (out_.over_vector ? "elements of the vector" : "records of the dataset") +
               " the loop runs over (the loop writes them)",
           loc);
  }
  if (writes && !outside_pointer_reads_.empty()) {
    const auto& [name, loc] = outside_pointer_reads_.front();
    escape(analysis::Escape::Kind::pointer_taken,
           "reads through " + name +
               " from outside the loop (it may point into an array the loop writes)",
           loc);
  }
  if (m.ordered) {
    for (const VarDecl* vd : reduction_order_) {
      const bool accumulator = accumulators_.count(vd) != 0;
      const QualType value = accumulator ? accumulator_value_type(vd->getType()) : vd->getType();
      const std::string op = accumulator ? accumulator_op(vd->getType()) : "sum";
      if (!value.isNull() && value->isRealFloatingType() && op != "min" && op != "max") {
        blocked_reductions_.insert(vd);
        escape(analysis::Escape::Kind::outside_write,
               "'" + vd->getNameAsString() +
                   "' is a floating-point sum in an ordered loop (its partial sums would be "
                   "added in worker order, not in the loop's order)",
               reduction_loc_[vd]);
      }
    }
  }
}

LoweredLoop LoopLowering::run() {
  auto& m = out_.model;
  m.loc = loc_of(loop_.for_loc);
  m.ordered = pragma_.ordered;
  m.buffered = pragma_.buffered;
  out_.gpu = pragma_.gpu;
  loop_var_ = loop_.var;
  if (const auto* dre = dyn_cast<DeclRefExpr>(loop_.range->IgnoreParenImpCasts());
      dre != nullptr && !loop_.int_range) { // an integer bound is an outside variable read
    range_decl_ = dre->getDecl();
  }
  range_field_ = site_member(loop_);
  const QualType range_type = loop_.range->getType();
  if (!choose_space(range_type)) {
    return std::move(out_);
  }

  Frame body;
  body_frame_ = &body;
  body.parents = std::make_unique<ParentMap>(const_cast<Stmt*>(loop_.body));
  bind_structured(body);
  // A ragged nest's iteration is one pass of the inner body: its `continue` ends the iteration.
  control_flow(loop_.inner != nullptr ? loop_.inner->getBody() : loop_.body, 0, 0, 0);
  find_privates();
  prescan(loop_.body, body);
  enclosing_method_ = method_of(loop_var_->getDeclContext()); // keys in helpers need it
  if (loop_.int_range) {
    choose_ragged_space();
    choose_range_keys();
  } else if (out_.index_rank == 0) {
    choose_key_fields(record_);
    choose_position_key();
    if (out_.over_vector && out_.model.fields.size() > k_max_inspected_keys) {
      error(pragma_.hash,
            "a '#pragma rotor parallel_for' loop over a std::vector may have at most " +
                std::to_string(k_max_inspected_keys) + " key fields; '" + out_.record_type +
                "' has " + std::to_string(out_.model.fields.size()) +
                " integer fields the loop does not write");
      return std::move(out_);
    }
  }

  walk(loop_.body, body);

  if (loop_.index_loop) { // `v[i].topic = z`
    out_.writes_records = !written_fields_.empty();
  } else if (out_.index_rank == 0) { // helpers may write fields the body does not name
    out_.writes_records = !written_fields_.empty() && loop_var_->getType()->isReferenceType() &&
                          !loop_var_->getType().getNonReferenceType().isConstQualified();
  }
  settle_outer_references();
  block_unsafe_leftovers();
  settle_helper_clones();
  settle_containers();
  check_derived_keys();
  check_ragged_bound();
  for (const SourceLocation& b : out_.breaks) {
    escape(analysis::Escape::Kind::control_flow, "'break' leaves the loop early", b, {}, true);
  }
  settle_reductions();
  note_unnamed_arrays();
  settle_buffered();
  block_unevaluated_arrays();
  return std::move(out_);
}

/// The loop's space from the range's type: a Dataset or a std::vector of plain records (the
/// record type) or an IndexSpace (its rank, fields i0, i1, ...). False, with an error, for
/// anything else.
bool LoopLowering::choose_space(QualType range_type) {
  auto& m = out_.model;
  if (loop_.index_loop) {
    return choose_index_loop_space(range_type);
  }
  if (const RecordDecl* record = dataset_record(range_type)) {
    m.space = analysis::SpaceKind::dataset;
    out_.record_type = record_type_name(ctx_, record);
    record_ = record;
    return true;
  }
  // A std::vector of plain records: the same keys and plan as a Dataset of them; the rewriter
  // runs it through the inspector (rotor/runtime/Inspector.h).
  if (const RecordDecl* record = vector_record(ctx_, range_type)) {
    m.space = analysis::SpaceKind::dataset;
    out_.record_type = record_type_name(ctx_, record);
    out_.over_vector = true;
    out_.range = text_of(loop_.range);
    record_ = record;
    return true;
  }
  if (const int n = index_space_rank(range_type); n > 0) {
    m.space = analysis::SpaceKind::index_space;
    out_.index_rank = n;
    for (int d = 0; d < n; ++d) {
      m.fields.push_back("i" + std::to_string(d));
    }
    return true;
  }
  error(pragma_.hash, "'#pragma rotor parallel_for' loop is over '" +
                          range_type.getNonReferenceType().getAsString() +
                          "', not a rotor::Dataset, a rotor::IndexSpace or a std::vector of "
                          "plain records");
  return false;
}

/// An index loop `for (I i = 0; i < v.size(); ++i)`: v must be a std::vector of plain records;
/// `v[i]` is the record, with a Dataset loop's keys. False, with an error, otherwise.
bool LoopLowering::choose_index_loop_space(QualType range_type) {
  if (loop_.int_range) {
    return choose_range_space();
  }
  const RecordDecl* record = vector_record(ctx_, range_type);
  if (record == nullptr) {
    error(pragma_.hash, "'#pragma rotor parallel_for' index loop is over '" +
                            range_type.getNonReferenceType().getAsString() +
                            "', not a std::vector of plain records");
    return false;
  }
  out_.model.space = analysis::SpaceKind::dataset;
  out_.record_type = record_type_name(ctx_, record);
  out_.over_vector = true;
  out_.range = text_of(loop_.range);
  record_ = record;
  return true;
}

/// `for (auto [i, j] : space)`: each binding is key field i.
void LoopLowering::bind_structured(Frame& body) {
  const auto* dd = dyn_cast<DecompositionDecl>(loop_var_);
  if (dd == nullptr) {
    return;
  }
  int i = 0;
  for (const BindingDecl* b : dd->bindings()) {
    out_.bindings.push_back(b->getNameAsString());
    Target t;
    t.kind = Target::binding_k;
    t.decl = b;
    t.field = i++;
    body.env[b] = t;
  }
  if (out_.index_rank == 0) {
    error(loop_var_->getLocation(),
          "structured bindings are supported for rotor::IndexSpace loops only");
  }
}

/// A Dataset loop's keys: the record's integer fields the loop does not write (over a
/// std::vector, also those of its record-typed fields: add_key_paths).
void LoopLowering::choose_key_fields(const RecordDecl* record) {
  std::vector<const FieldDecl*> prefix;
  add_key_paths(record, prefix);
}

/// The outside variables changed by `+=`/`-=` (or accumulators) become the model's reductions,
/// unless also used otherwise (an escape) or misused (blocked_reductions_).
void LoopLowering::settle_reductions() {
  for (const VarDecl* vd : reduction_order_) {
    if (blocked_reductions_.count(vd)) {
      continue; // misused: the body must see the variable itself (the loop runs serially)
    }
    auto read = outer_read_.find(vd);
    if (read != outer_read_.end() && !accumulators_.count(vd)) {
      escape(analysis::Escape::Kind::outside_write,
             "'" + vd->getNameAsString() +
                 "' is changed by += / -= and also used otherwise in the loop",
             read->second);
      continue;
    }
    analysis::Reduction r;
    r.name = vd->getNameAsString();
    r.op = accumulators_.count(vd) ? accumulator_op(vd->getType()) : "+";
    r.loc = loc_of(reduction_loc_[vd]);
    out_.model.reductions.push_back(r);
    out_.reductions.push_back(r.name);
    if (!named_in_body_.count(vd)) {
      out_.unused_in_body.push_back(r.name);
    }
  }
}

/// Arrays only a helper names: the body lambda leaves their parameter unnamed.
void LoopLowering::note_unnamed_arrays() {
  for (const auto& a : out_.model.arrays) {
    if (row_expressions_.count(a.name)) {
      continue; // a container: its lambda parameter is unnamed, the body names the container
    }
    bool named = false;
    for (const ValueDecl* d : named_in_body_) {
      named = named || d->getNameAsString() == a.name;
    }
    if (!named) {
      out_.unused_in_body.push_back(a.name);
    }
  }
}

/// `buffered(B)` names kept only for arrays the loop uses; a warning for the others.
void LoopLowering::settle_buffered() {
  auto& m = out_.model;
  const std::vector<std::string> buffered = m.buffered;
  m.buffered.clear();
  for (const std::string& b : buffered) {
    if (m.array(b) != nullptr) {
      m.buffered.push_back(b);
    } else {
      diags_.push_back(
          make_diagnostic(sm_, pragma_.hash, Severity::warning, unbuffered_name_message(b), file_));
    }
  }
}

} // namespace rotor::frontend::lowering

namespace rotor::frontend {

LoweredLoop lower_loop(ASTContext& ctx, const LoopSite& loop, const RotorPragma& pragma,
                       const std::string& file_name, std::vector<Diagnostic>& diags,
                       const OtherSources* other) {
  return lowering::LoopLowering(ctx, loop, pragma, file_name, diags, other).run();
}

} // namespace rotor::frontend
