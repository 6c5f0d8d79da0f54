#include "Lowering.h"

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

namespace {

/// The symbolic value of an integer expression used as a subscript.
struct Sym {
  Subscript::Kind kind = Subscript::Kind::unknown;
  int field = -1;
  Offset offset;
  static Sym number(std::int64_t v) {
    Sym s;
    s.kind = Subscript::Kind::constant;
    s.offset.value = v;
    return s;
  }
  static Sym symbol(std::string name) {
    Sym s;
    s.kind = Subscript::Kind::constant;
    s.offset.symbol = std::move(name);
    return s;
  }
  static Sym key(int field) {
    Sym s;
    s.kind = Subscript::Kind::key;
    s.field = field;
    return s;
  }
  static Sym whole() {
    Sym s;
    s.kind = Subscript::Kind::whole;
    return s;
  }
  static Sym unknown() { return Sym{}; }
};

/// Adds (sign = +1) or subtracts (sign = -1) two loop-invariant offsets; false if the result
/// is not a number plus at most one symbol.
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

/// How an expression is used by its context.
enum class Use {
  read,
  write,      ///< assigned, incremented, bound to a non-const reference, non-const method, unsure
  plus_minus, ///< the direct left side of `+=` / `-=`
  alias_init, ///< initializes a local variable by value (`auto w = W.row(u)`)
  address,    ///< a pointer into it is taken (`&x`, `.data()`)
};

struct UseInfo {
  Use use = Use::read;
  const VarDecl* var = nullptr; ///< alias_init: the variable
};

/// What an expression ultimately names.
struct Target {
  enum Kind { none, array_k, row_k, record_k, point_k, outer_k, local_k, binding_k } kind = none;
  std::string array;               ///< array: its name
  int rank = 1;                    ///< array: its rank
  std::string element;             ///< array: element type
  int access = -1;                 ///< row: the access the alias came from
  const ValueDecl* decl = nullptr; ///< outer / local / binding
  int field = -1;                  ///< binding: its index
};

class LoopLowering;

/// One activation: the loop body (depth 0) or a called function analysed with its arguments.
struct Frame {
  const FunctionDecl* fn = nullptr;
  std::unique_ptr<ParentMap> parents;
  std::map<const ValueDecl*, Target> env; ///< locals and parameters with a known meaning
  std::map<const ValueDecl*, Sym> ints;   ///< integer locals / parameters with a known value
  std::map<const ParmVarDecl*, std::pair<const Expr*, Frame*>> args; ///< by-reference arguments
  const Expr* this_object = nullptr;
  Frame* caller = nullptr;
};

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

class LoopLowering {
public:
  LoopLowering(ASTContext& ctx, const CXXForRangeStmt& loop, const RotorPragma& pragma,
               const std::string& file, std::vector<Diagnostic>& diags)
      : ctx_(ctx), sm_(ctx.getSourceManager()), loop_(loop), pragma_(pragma), file_(file),
        diags_(diags) {}

  LoweredLoop run();

private:
  // ---- helpers --------------------------------------------------------------------------
  analysis::SourceLoc loc_of(SourceLocation l) const {
    analysis::SourceLoc out;
    l = sm_.getExpansionLoc(l);
    out.file = sm_.isWrittenInMainFile(l) ? file_ : sm_.getFilename(l).str();
    out.line = static_cast<int>(sm_.getExpansionLineNumber(l));
    out.col = static_cast<int>(sm_.getExpansionColumnNumber(l));
    return out;
  }
  std::string text_of(const Stmt* s) const {
    return Lexer::getSourceText(CharSourceRange::getTokenRange(s->getSourceRange()), sm_,
                                ctx_.getLangOpts())
        .str();
  }
  void error(SourceLocation loc, std::string msg) {
    diags_.push_back(make_diagnostic(sm_, loc, Severity::error, std::move(msg), file_));
    out_.failed = true;
  }
  bool inside_loop(SourceLocation l) const {
    l = sm_.getExpansionLoc(l);
    SourceRange r = loop_.getSourceRange();
    return !sm_.isBeforeInTranslationUnit(l, sm_.getExpansionLoc(r.getBegin())) &&
           !sm_.isBeforeInTranslationUnit(sm_.getExpansionLoc(r.getEnd()), l);
  }
  void escape(analysis::Escape::Kind kind, std::string what, SourceLocation loc) {
    for (const auto& e : out_.model.escapes) {
      if (e.kind == kind && e.what == what) {
        return;
      }
    }
    out_.model.escapes.push_back({kind, std::move(what), loc_of(loc)});
  }

  UseInfo classify(const Expr* e, Frame& f) const;
  Target target_of(const Expr* e, Frame& f);
  Sym eval(const Expr* e, Frame& f);
  void prescan(const Stmt* s, Frame& f);
  void walk(const Stmt* s, Frame& f);
  void on_declref(const DeclRefExpr* dre, Frame& f);
  void on_this(const CXXThisExpr* te, Frame& f);
  void on_array_use(const Expr* use, const Target& t, Frame& f);
  void on_call(const CallExpr* call, Frame& f);
  void on_decl(const VarDecl* vd, Frame& f);
  int add_access(const Target& t, bool write, std::vector<Subscript> subs, const Expr* at);
  void note_array(const Target& t);
  bool analysable_callee(const FunctionDecl* fd) const;
  void control_flow(const Stmt* s, int loops, int switches, int lambdas);

  ASTContext& ctx_;
  const SourceManager& sm_;
  const CXXForRangeStmt& loop_;
  const RotorPragma& pragma_;
  std::string file_;
  std::vector<Diagnostic>& diags_;
  LoweredLoop out_;

  const VarDecl* loop_var_ = nullptr;
  const ValueDecl* range_decl_ = nullptr;
  std::vector<const FieldDecl*> key_fields_;
  std::set<const FieldDecl*> written_fields_;
  std::set<const ValueDecl*> mutated_;       ///< written anywhere in the loop (or a callee)
  std::set<const ValueDecl*> inductions_;    ///< induction variables of inner `for` loops
  std::set<const ValueDecl*> named_in_body_; ///< outer variables the body names directly
  std::vector<const FunctionDecl*> stack_;
  // Reductions: first use order, and outer variables used in other ways.
  std::vector<const VarDecl*> reduction_order_;
  std::map<const VarDecl*, SourceLocation> reduction_loc_;
  std::set<const VarDecl*> accumulators_;
  std::map<const VarDecl*, SourceLocation> outer_read_;
  Frame* body_frame_ = nullptr;
};

// ---- use classification -------------------------------------------------------------------

UseInfo LoopLowering::classify(const Expr* e, Frame& f) const {
  const Stmt* cur = e;
  bool direct = true;
  for (int guard = 0; guard < 64; ++guard) {
    const Stmt* p = f.parents->getParent(cur);
    if (p == nullptr) {
      return {Use::read};
    }
    if (const auto* ice = dyn_cast<ImplicitCastExpr>(p)) {
      if (ice->getCastKind() == CK_LValueToRValue) {
        return {Use::read};
      }
      if (ice->getCastKind() == CK_ArrayToPointerDecay) {
        return {Use::address};
      }
      cur = p;
      continue;
    }
    if (isa<ParenExpr, MaterializeTemporaryExpr, ExprWithCleanups, CXXBindTemporaryExpr,
            ConditionalOperator>(p)) {
      cur = p;
      continue;
    }
    if (const auto* cast = dyn_cast<ExplicitCastExpr>(p)) {
      if (is_nonconst_ref(cast->getTypeAsWritten())) {
        cur = p;
        continue;
      }
      return {Use::read};
    }
    const auto method_use = [&](const CXXMethodDecl* md, const Expr* call) -> int {
      // 0: read, 1: write, 2: plus_minus, 3: address, 4: continue from the call
      if (md->getNameAsString() == "data") {
        return 3;
      }
      const OverloadedOperatorKind op = md->getOverloadedOperator();
      if (op == OO_PlusEqual || op == OO_MinusEqual) {
        return direct ? 2 : 1;
      }
      if (is_modifying_operator(op)) {
        return 1;
      }
      if (md->isConst() || md->isStatic()) {
        return 0;
      }
      const std::string name = md->getNameAsString();
      if (op == OO_Call || op == OO_Subscript || name == "coeffRef" || name == "at" ||
          name == "front" || name == "back" || name == "operator*") {
        if (call != nullptr && md->getReturnType()->isReferenceType()) {
          return 4;
        }
        return md->getReturnType()->isReferenceType() ? 1 : 0;
      }
      return 1;
    };
    const auto from_code = [&](int code, const Expr* call) -> std::optional<UseInfo> {
      switch (code) {
      case 0:
        return UseInfo{Use::read};
      case 1:
        return UseInfo{Use::write};
      case 2:
        return UseInfo{Use::plus_minus};
      case 3:
        return UseInfo{Use::address};
      default:
        cur = call;
        direct = false;
        return std::nullopt;
      }
    };
    if (const auto* me = dyn_cast<MemberExpr>(p)) {
      if (isa<FieldDecl>(me->getMemberDecl())) {
        cur = p;
        direct = false;
        continue;
      }
      if (const auto* md = dyn_cast<CXXMethodDecl>(me->getMemberDecl())) {
        const auto* call = dyn_cast_or_null<Expr>(f.parents->getParent(p));
        if (auto r = from_code(method_use(md, call), call)) {
          return *r;
        }
        continue;
      }
      return {Use::read};
    }
    const auto param_use = [&](const FunctionDecl* fd, unsigned i) -> UseInfo {
      if (fd == nullptr) {
        return {Use::write};
      }
      if (i >= fd->getNumParams()) {
        return {Use::read};
      }
      const QualType t = fd->getParamDecl(i)->getType();
      if (t->isReferenceType()) {
        return t.getNonReferenceType().isConstQualified() ? UseInfo{Use::read}
                                                          : UseInfo{Use::write};
      }
      if (t->isPointerType() && !t->getPointeeType().isConstQualified()) {
        return {Use::write};
      }
      return {Use::read};
    };
    if (const auto* op = dyn_cast<CXXOperatorCallExpr>(p)) {
      unsigned i = 0;
      while (i < op->getNumArgs() && op->getArg(i) != cur) {
        ++i;
      }
      if (i == op->getNumArgs()) {
        return {Use::read}; // the callee itself
      }
      const FunctionDecl* fd = op->getDirectCallee();
      if (const auto* md = dyn_cast_or_null<CXXMethodDecl>(fd)) {
        if (i == 0) {
          if (auto r = from_code(method_use(md, op), op)) {
            return *r;
          }
          continue;
        }
        return param_use(md, i - 1);
      }
      if (fd != nullptr && is_modifying_operator(op->getOperator()) && i == 0) {
        return {Use::write};
      }
      return param_use(fd, i);
    }
    if (const auto* call = dyn_cast<CallExpr>(p)) {
      for (unsigned i = 0; i < call->getNumArgs(); ++i) {
        if (call->getArg(i) == cur) {
          return param_use(call->getDirectCallee(), i);
        }
      }
      return {Use::read};
    }
    if (const auto* ctor = dyn_cast<CXXConstructExpr>(p)) {
      for (unsigned i = 0; i < ctor->getNumArgs(); ++i) {
        if (ctor->getArg(i) == cur) {
          return param_use(ctor->getConstructor(), i);
        }
      }
      return {Use::read};
    }
    if (const auto* bo = dyn_cast<BinaryOperator>(p)) {
      if (bo->isAssignmentOp() && bo->getLHS() == cur) {
        if ((bo->getOpcode() == BO_AddAssign || bo->getOpcode() == BO_SubAssign) && direct) {
          return {Use::plus_minus};
        }
        return {Use::write};
      }
      if (bo->getOpcode() == BO_Comma && bo->getRHS() == cur) {
        cur = p;
        continue;
      }
      return {Use::read};
    }
    if (const auto* uo = dyn_cast<UnaryOperator>(p)) {
      if (uo->getOpcode() == UO_Deref) {
        cur = p;
        direct = false;
        continue;
      }
      if (uo->getOpcode() == UO_AddrOf) {
        return {Use::address};
      }
      return uo->isIncrementDecrementOp() ? UseInfo{Use::write} : UseInfo{Use::read};
    }
    if (const auto* ase = dyn_cast<ArraySubscriptExpr>(p)) {
      if (ase->getBase() == cur) {
        cur = p;
        direct = false;
        continue;
      }
      return {Use::read};
    }
    if (const auto* ds = dyn_cast<DeclStmt>(p)) {
      for (const Decl* d : ds->decls()) {
        if (const auto* vd = dyn_cast<VarDecl>(d); vd != nullptr && vd->getInit() == cur) {
          if (vd->getType()->isReferenceType()) {
            return vd->getType().getNonReferenceType().isConstQualified() ? UseInfo{Use::read}
                                                                          : UseInfo{Use::write};
          }
          return {Use::alias_init, vd};
        }
      }
      return {Use::read};
    }
    if (isa<ReturnStmt>(p)) {
      return (f.fn != nullptr && is_nonconst_ref(f.fn->getReturnType())) ? UseInfo{Use::write}
                                                                         : UseInfo{Use::read};
    }
    if (isa<InitListExpr, LambdaExpr, CXXStdInitializerListExpr>(p) || !isa<Expr>(p)) {
      return {Use::read};
    }
    return {Use::write}; // unsure
  }
  return {Use::write};
}

// ---- what an expression names ---------------------------------------------------------------

Target LoopLowering::target_of(const Expr* e, Frame& f) {
  e = e->IgnoreParenImpCasts();
  if (const auto* cast = dyn_cast<ExplicitCastExpr>(e)) {
    return target_of(cast->getSubExpr(), f);
  }
  if (isa<CXXThisExpr>(e)) {
    if (f.this_object != nullptr && f.caller != nullptr) {
      return target_of(f.this_object, *f.caller);
    }
    return {};
  }
  if (const auto* me = dyn_cast<MemberExpr>(e)) {
    // A member of something outside is outside; a member of the record is the record.
    Target base = target_of(me->getBase(), f);
    if (base.kind == Target::outer_k || base.kind == Target::record_k ||
        base.kind == Target::local_k) {
      if (const auto* fd = dyn_cast<FieldDecl>(me->getMemberDecl());
          fd != nullptr && is_dist_array(fd->getType()) && base.kind == Target::outer_k) {
        Target t;
        t.kind = Target::array_k;
        t.array = text_of(me);
        t.rank = dist_array_rank(fd->getType());
        t.element = dist_array_element(fd->getType());
        return t;
      }
      return base;
    }
    return {};
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
  if (d == loop_var_) {
    Target t;
    t.kind = out_.index_rank > 0 ? Target::point_k : Target::record_k;
    t.decl = d;
    return t;
  }
  const auto* vd = dyn_cast<VarDecl>(d);
  if (vd == nullptr) {
    return {};
  }
  Target t;
  t.decl = d;
  const bool local =
      inside_loop(vd->getLocation()) ||
      (f.fn != nullptr && vd->isLocalVarDeclOrParm() && vd->getParentFunctionOrMethod() == f.fn);
  if (is_dist_array(vd->getType()) && !local) {
    t.kind = Target::array_k;
    t.array = vd->getNameAsString();
    t.rank = dist_array_rank(vd->getType());
    t.element = dist_array_element(vd->getType());
    return t;
  }
  t.kind = local ? Target::local_k : Target::outer_k;
  return t;
}

// ---- symbolic subscripts --------------------------------------------------------------------

Sym LoopLowering::eval(const Expr* e, Frame& f) {
  if (!e->isValueDependent() && !e->isTypeDependent()) {
    Expr::EvalResult r;
    if (e->EvaluateAsInt(r, ctx_)) {
      return Sym::number(r.Val.getInt().getExtValue());
    }
  }
  e = e->IgnoreParenImpCasts();
  if (const auto* cast = dyn_cast<ExplicitCastExpr>(e)) {
    return eval(cast->getSubExpr(), f);
  }
  if (const auto* dre = dyn_cast<DeclRefExpr>(e)) {
    const ValueDecl* d = dre->getDecl();
    if (auto it = f.ints.find(d); it != f.ints.end()) {
      return it->second;
    }
    if (const auto* pvd = dyn_cast<ParmVarDecl>(d)) {
      if (auto it = f.args.find(pvd); it != f.args.end()) {
        return mutated_.count(d) ? Sym::unknown() : eval(it->second.first, *it->second.second);
      }
    }
    Target t = target_of(dre, f);
    if (t.kind == Target::binding_k) {
      return Sym::key(t.field);
    }
    if (t.kind == Target::outer_k && !mutated_.count(d) && d->getType()->isIntegerType()) {
      return Sym::symbol(d->getNameAsString());
    }
    if (t.kind == Target::local_k && inductions_.count(d)) {
      return Sym::whole();
    }
    return Sym::unknown();
  }
  if (const auto* me = dyn_cast<MemberExpr>(e)) {
    Target base = target_of(me->getBase(), f);
    if (base.kind == Target::record_k) {
      const auto* fd = dyn_cast<FieldDecl>(me->getMemberDecl());
      auto it = std::find(key_fields_.begin(), key_fields_.end(), fd);
      if (fd != nullptr && it != key_fields_.end()) {
        return Sym::key(static_cast<int>(it - key_fields_.begin()));
      }
    }
    return Sym::unknown();
  }
  if (const auto* op = dyn_cast<CXXOperatorCallExpr>(e)) {
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
  if (const auto* bo = dyn_cast<BinaryOperator>(e)) {
    Sym a = eval(bo->getLHS(), f);
    Sym b = eval(bo->getRHS(), f);
    using K = Subscript::Kind;
    if (a.kind == K::unknown || b.kind == K::unknown) {
      return Sym::unknown();
    }
    const bool add = bo->getOpcode() == BO_Add;
    const bool sub = bo->getOpcode() == BO_Sub;
    if (add || sub) {
      if (a.kind == K::whole || b.kind == K::whole) {
        return (a.kind == K::key || b.kind == K::key) ? Sym::whole() : Sym::whole();
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
    if (a.kind != K::key && b.kind != K::key && (a.kind == K::whole || b.kind == K::whole)) {
      return Sym::whole();
    }
    return Sym::unknown();
  }
  return Sym::unknown();
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

// ---- the walk ---------------------------------------------------------------------------------

void LoopLowering::note_array(const Target& t) {
  if (out_.model.array(t.array) == nullptr) {
    out_.model.arrays.push_back({t.array, t.rank, t.element});
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
    const std::string name = me->getMemberNameInfo().getAsString();
    const auto* call = dyn_cast_or_null<CXXMemberCallExpr>(f.parents->getParent(me));
    if (name == "extent" || name == "shape" || name == "rows" || name == "cols" || name == "size") {
      note_array(t);
      return;
    }
    if (name == "data") {
      note_array(t);
      out_.used_whole.push_back(t.array);
      escape(analysis::Escape::Kind::pointer_taken,
             t.array + ".data() takes a pointer into " + t.array, me->getBeginLoc());
      return;
    }
    if (name == "row" && call != nullptr && call->getNumArgs() == 1) {
      subs.push_back(to_subscript(eval(call->getArg(0), f), text_of(call->getArg(0))));
      subs.push_back(Subscript::whole());
      access = call;
    } else if (call != nullptr) {
      out_.used_whole.push_back(t.array);
      const auto* md = call->getMethodDecl();
      const bool write = md == nullptr || !md->isConst();
      add_access(t, write, {}, call);
      return;
    }
  }
  if (access == nullptr) {
    // The array itself is used: passed to a function, copied, bound to a reference.
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
    return;
  }
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

void LoopLowering::on_declref(const DeclRefExpr* dre, Frame& f) {
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
  case Target::outer_k: {
    const auto* vd = dyn_cast<VarDecl>(t.decl);
    if (vd == nullptr || t.decl == range_decl_) {
      break;
    }
    if (is_accumulator(vd->getType())) {
      if (!reduction_loc_.count(vd)) {
        reduction_order_.push_back(vd);
        reduction_loc_[vd] = dre->getBeginLoc();
      }
      accumulators_.insert(vd);
      break;
    }
    // Passed by reference to a function analysed below: its uses there decide.
    const Stmt* p = f.parents->getParent(dre);
    while (p != nullptr && isa<ImplicitCastExpr, ParenExpr>(p)) {
      p = f.parents->getParent(p);
    }
    if (const auto* call = dyn_cast_or_null<CallExpr>(p);
        call != nullptr && !isa<CXXOperatorCallExpr>(call) &&
        analysable_callee(call->getDirectCallee())) {
      break;
    }
    const UseInfo u = classify(dre, f);
    const bool direct = dre->getDecl() == vd;
    if (u.use == Use::plus_minus && vd->getType()->isArithmeticType()) {
      if (!reduction_loc_.count(vd)) {
        reduction_order_.push_back(vd);
        reduction_loc_[vd] = dre->getBeginLoc();
      }
    } else if (u.use == Use::read || u.use == Use::alias_init) {
      if (direct && !dre->getType()->isFunctionType()) {
        outer_read_.emplace(vd, dre->getBeginLoc());
      }
    } else if (u.use == Use::address && !is_nonconst_ref(vd->getType()) &&
               vd->getType().isConstQualified()) {
      outer_read_.emplace(vd, dre->getBeginLoc());
    } else {
      escape(analysis::Escape::Kind::outside_write,
             "'" + vd->getNameAsString() + "' is declared outside the loop and written in it",
             dre->getBeginLoc());
    }
    break;
  }
  default:
    break;
  }
}

void LoopLowering::on_this(const CXXThisExpr* te, Frame& f) {
  if (f.this_object == nullptr) {
    return;
  }
  const Target t = target_of(te, f);
  if (t.kind == Target::outer_k) {
    const UseInfo u = classify(te, f);
    if (u.use != Use::read && u.use != Use::alias_init) {
      escape(analysis::Escape::Kind::outside_write,
             "'" + t.decl->getNameAsString() + "' is declared outside the loop and written in it",
             te->getBeginLoc());
    }
  }
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
  if (fd == nullptr) {
    if (!sm_.isInSystemHeader(call->getBeginLoc())) {
      escape(analysis::Escape::Kind::unknown_call,
             "call through '" + text_of(call->getCallee()) + "' (its target is not known)",
             call->getBeginLoc());
    }
    return;
  }
  const FunctionDecl* def = nullptr;
  if (!fd->hasBody(def) || def == nullptr) {
    if (!sm_.isInSystemHeader(fd->getLocation()) && !is_rotor_decl(fd) && !fd->getBuiltinID()) {
      escape(analysis::Escape::Kind::unknown_call,
             "call to '" + fd->getNameAsString() + "', whose body is not visible here",
             call->getBeginLoc());
    }
    return;
  }
  if (!analysable_callee(def)) {
    return;
  }
  // A lambda written inside the loop was walked where it is written.
  if (const auto* md = dyn_cast<CXXMethodDecl>(def);
      md != nullptr && md->getParent()->isLambda() && inside_loop(md->getLocation())) {
    return;
  }
  if (std::find(stack_.begin(), stack_.end(), def) != stack_.end()) {
    escape(analysis::Escape::Kind::unknown_call,
           "recursive call to '" + def->getNameAsString() + "'", call->getBeginLoc());
    return;
  }
  if (stack_.size() > 16) {
    escape(analysis::Escape::Kind::unknown_call,
           "calls nested too deeply at '" + def->getNameAsString() + "'", call->getBeginLoc());
    return;
  }
  Frame callee;
  callee.fn = def;
  callee.caller = &f;
  callee.parents = std::make_unique<ParentMap>(def->getBody());
  unsigned first = 0;
  if (const auto* op = dyn_cast<CXXOperatorCallExpr>(call);
      op != nullptr && isa<CXXMethodDecl>(def)) {
    callee.this_object = op->getArg(0);
    first = 1;
  } else if (const auto* mc = dyn_cast<CXXMemberCallExpr>(call)) {
    callee.this_object = mc->getImplicitObjectArgument();
  }
  for (unsigned i = first; i < call->getNumArgs(); ++i) {
    const unsigned pi = i - first;
    if (pi >= def->getNumParams()) {
      break;
    }
    const ParmVarDecl* param = def->getParamDecl(pi);
    const Expr* arg = call->getArg(i);
    if (param->getType()->isReferenceType() || is_dist_array(param->getType())) {
      callee.args[param] = {arg, &f};
    } else if (param->getType()->isIntegerType()) {
      callee.ints[param] = eval(arg, f);
    } else {
      Target t = target_of(arg, f);
      if (t.kind == Target::row_k || t.kind == Target::record_k || t.kind == Target::point_k) {
        callee.args[param] = {arg, &f}; // a copy of a row map still points into the array
      }
    }
  }
  stack_.push_back(def);
  prescan(def->getBody(), callee);
  walk(def->getBody(), callee);
  stack_.pop_back();
}

void LoopLowering::walk(const Stmt* s, Frame& f) {
  if (s == nullptr) {
    return;
  }
  if (isa<UnaryExprOrTypeTraitExpr>(s)) {
    return; // sizeof / alignof: unevaluated
  }
  if (const auto* dre = dyn_cast<DeclRefExpr>(s)) {
    on_declref(dre, f);
    return;
  }
  if (const auto* te = dyn_cast<CXXThisExpr>(s)) {
    on_this(te, f);
    return;
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
      }
    }
    return;
  }
  for (const Stmt* child : s->children()) {
    walk(child, f);
  }
  if (const auto* call = dyn_cast<CallExpr>(s)) {
    on_call(call, f);
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

LoweredLoop LoopLowering::run() {
  auto& m = out_.model;
  m.loc = loc_of(loop_.getForLoc());
  m.ordered = pragma_.ordered;
  m.buffered = pragma_.buffered;
  out_.gpu = pragma_.gpu;
  loop_var_ = loop_.getLoopVariable();
  if (const auto* dre = dyn_cast<DeclRefExpr>(loop_.getRangeInit()->IgnoreParenImpCasts())) {
    range_decl_ = dre->getDecl();
  }

  const QualType range_type = loop_.getRangeInit()->getType();
  if (const RecordDecl* record = dataset_record(range_type)) {
    m.space = analysis::SpaceKind::dataset;
    out_.record_type = record_type_name(ctx_, record);
  } else if (const int n = index_space_rank(range_type); n > 0) {
    m.space = analysis::SpaceKind::index_space;
    out_.index_rank = n;
    for (int d = 0; d < n; ++d) {
      m.fields.push_back("i" + std::to_string(d));
    }
  } else {
    error(pragma_.hash, "'#pragma rotor parallel_for' loop is over '" +
                            range_type.getNonReferenceType().getAsString() +
                            "', not a rotor::Dataset or rotor::IndexSpace");
    return std::move(out_);
  }

  Frame body;
  body_frame_ = &body;
  body.parents = std::make_unique<ParentMap>(const_cast<Stmt*>(loop_.getBody()));
  if (const auto* dd = dyn_cast<DecompositionDecl>(loop_var_)) {
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

  control_flow(loop_.getBody(), 0, 0, 0);
  prescan(loop_.getBody(), body);

  if (out_.index_rank == 0) {
    const RecordDecl* record = dataset_record(range_type);
    for (const FieldDecl* fd : record->fields()) {
      const QualType t = fd->getType();
      if (t->isIntegerType() && !t->isBooleanType() && !written_fields_.count(fd)) {
        key_fields_.push_back(fd);
        m.fields.push_back(fd->getNameAsString());
      }
    }
    out_.writes_records = !written_fields_.empty() && loop_var_->getType()->isReferenceType() &&
                          !loop_var_->getType().getNonReferenceType().isConstQualified();
  }

  walk(loop_.getBody(), body);

  for (const SourceLocation& b : out_.breaks) {
    escape(analysis::Escape::Kind::control_flow, "'break' leaves the loop early", b);
  }
  for (const VarDecl* vd : reduction_order_) {
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
    m.reductions.push_back(r);
    out_.reductions.push_back(r.name);
    if (!named_in_body_.count(vd)) {
      out_.unused_in_body.push_back(r.name);
    }
  }
  for (const auto& a : m.arrays) {
    bool named = false;
    for (const ValueDecl* d : named_in_body_) {
      named = named || d->getNameAsString() == a.name;
    }
    if (!named) {
      out_.unused_in_body.push_back(a.name);
    }
  }
  const std::vector<std::string> buffered = m.buffered;
  m.buffered.clear();
  for (const std::string& b : buffered) {
    if (m.array(b) != nullptr) {
      m.buffered.push_back(b);
    } else {
      diags_.push_back(
          make_diagnostic(sm_, pragma_.hash, Severity::warning,
                          "buffered(" + b + "): the loop uses no array named '" + b + "'", file_));
    }
  }
  return std::move(out_);
}

} // namespace

LoweredLoop lower_loop(ASTContext& ctx, const CXXForRangeStmt& loop, const RotorPragma& pragma,
                       const std::string& file_name, std::vector<Diagnostic>& diags) {
  return LoopLowering(ctx, loop, pragma, file_name, diags).run();
}

} // namespace rotor::frontend
