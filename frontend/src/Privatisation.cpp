#include "Privatisation.h"

#include "LoweringState.h"
#include "RotorTypes.h"

#include <clang/AST/DeclCXX.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/ParentMap.h>

#include <algorithm>
#include <functional>
#include <optional>

namespace rotor::frontend {

void visit_statements(const clang::Stmt* s, const std::function<void(const clang::Stmt*)>& fn) {
  if (s == nullptr) {
    return;
  }
  fn(s);
  for (const clang::Stmt* c : s->children()) {
    visit_statements(c, fn);
  }
  if (const auto* lambda = clang::dyn_cast<clang::LambdaExpr>(s)) {
    visit_statements(lambda->getBody(), fn);
  }
}

bool names_variable(const clang::Stmt* s, const clang::VarDecl* v) {
  bool found = false;
  visit_statements(s, [&](const clang::Stmt* x) {
    if (const auto* dre = clang::dyn_cast<clang::DeclRefExpr>(x);
        dre != nullptr && dre->getDecl() == v) {
      found = true;
    }
  });
  return found;
}

namespace {

using namespace clang;

bool is_ref_to(const Expr* e, const VarDecl* v) {
  const auto* dre = dyn_cast_or_null<DeclRefExpr>(e ? e->IgnoreParenImpCasts() : nullptr);
  return dre != nullptr && dre->getDecl() == v;
}

/// `v[i]` (built-in or `operator[]`): its index, else nullptr.
const Expr* subscript_of(const Expr* e, const VarDecl* v) {
  e = e->IgnoreParenImpCasts();
  if (const auto* ase = dyn_cast<ArraySubscriptExpr>(e);
      ase != nullptr && is_ref_to(ase->getBase(), v)) {
    return ase->getIdx();
  }
  if (const auto* op = dyn_cast<CXXOperatorCallExpr>(e);
      op != nullptr && op->getOperator() == OO_Subscript && op->getNumArgs() == 2 &&
      is_ref_to(op->getArg(0), v)) {
    return op->getArg(1);
  }
  return nullptr;
}

/// `v.size()`.
bool is_size_of(const Expr* e, const VarDecl* v) {
  const auto* call = dyn_cast<CXXMemberCallExpr>(e->IgnoreParenCasts());
  return call != nullptr && call->getNumArgs() == 0 && call->getMethodDecl() != nullptr &&
         call->getMethodDecl()->getNameAsString() == "size" &&
         is_ref_to(call->getImplicitObjectArgument(), v);
}

/// The element count of `T[N]` / `std::array<T, N>` (arithmetic T), 0 for `std::vector<T>`
/// (arithmetic T), nullopt for any other type.
std::optional<std::uint64_t> buffer_extent(QualType t) {
  if (const auto* ca = dyn_cast<ConstantArrayType>(t.getCanonicalType().getTypePtr())) {
    return ca->getElementType()->isArithmeticType()
               ? std::optional<std::uint64_t>(ca->getSize().getZExtValue())
               : std::nullopt;
  }
  const auto* spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(t->getAsCXXRecordDecl());
  if (spec == nullptr || !spec->isInStdNamespace()) {
    return std::nullopt;
  }
  const TemplateArgumentList& args = spec->getTemplateArgs();
  if (args.size() < 1 || args[0].getKind() != TemplateArgument::Type ||
      !args[0].getAsType()->isArithmeticType()) {
    return std::nullopt;
  }
  const std::string name = spec->getName().str();
  if (name == "vector") {
    return 0;
  }
  if (name == "array" && args.size() == 2 && args[1].getKind() == TemplateArgument::Integral) {
    return args[1].getAsIntegral().getZExtValue();
  }
  return std::nullopt;
}

/// A vector declared `std::vector<T> v(K)` (K a const integer variable or a constant): is `bound`
/// that K? (Only asked when the loop is the only code naming `v`, so nothing resized it.)
bool matches_declared_size(ASTContext& ctx, const VarDecl* v, const Expr* bound) {
  const auto* ctor =
      dyn_cast_or_null<CXXConstructExpr>(v->getInit() ? v->getInit()->IgnoreImplicit() : nullptr);
  if (ctor == nullptr || ctor->getNumArgs() < 1) {
    return false;
  }
  const Expr* size = ctor->getArg(0)->IgnoreParenImpCasts();
  const Expr* b = bound->IgnoreParenImpCasts();
  bool same = false;
  if (const auto* sd = dyn_cast<DeclRefExpr>(size)) {
    const auto* kv = dyn_cast<VarDecl>(sd->getDecl());
    same = kv != nullptr && kv->getType().isConstQualified() && is_ref_to(b, kv);
  } else {
    Expr::EvalResult x, y;
    same =
        size->EvaluateAsInt(x, ctx) && b->EvaluateAsInt(y, ctx) && x.Val.getInt() == y.Val.getInt();
  }
  return same; // not resized before the loop: the loop is the only code naming it
}

/// Does `bound` cover every element of `v`?
bool covers(ASTContext& ctx, const VarDecl* v, std::uint64_t extent, const Expr* bound) {
  if (is_size_of(bound, v)) {
    return true;
  }
  if (extent == 0) {
    return matches_declared_size(ctx, v, bound);
  }
  Expr::EvalResult r;
  return bound->EvaluateAsInt(r, ctx) && r.Val.getInt().isNonNegative() &&
         r.Val.getInt().getZExtValue() == extent;
}

/// `int k = 0; k < bound; ++k` (or `k++`): the induction variable and the bound.
const VarDecl* counting_loop(ASTContext& ctx, const ForStmt* loop, const Expr*& bound) {
  const auto* init = dyn_cast_or_null<DeclStmt>(loop->getInit());
  const auto* k = init && init->isSingleDecl() ? dyn_cast<VarDecl>(init->getSingleDecl()) : nullptr;
  Expr::EvalResult zero;
  if (k == nullptr || !k->getType()->isIntegerType() || k->getInit() == nullptr ||
      !k->getInit()->EvaluateAsInt(zero, ctx) || zero.Val.getInt() != 0) {
    return nullptr;
  }
  const auto* cond = dyn_cast_or_null<BinaryOperator>(loop->getCond());
  const auto* inc = dyn_cast_or_null<UnaryOperator>(loop->getInc());
  if (cond == nullptr || cond->getOpcode() != BO_LT || !is_ref_to(cond->getLHS(), k) ||
      inc == nullptr || !inc->isIncrementOp() || !is_ref_to(inc->getSubExpr(), k)) {
    return nullptr;
  }
  bound = cond->getRHS();
  return k;
}

/// `k` is only read in `s`, and `s` has no jump out of its iteration.
bool plain_body(const Stmt* s, const VarDecl* k) {
  ParentMap parents(const_cast<Stmt*>(s));
  bool ok = true;
  visit_statements(s, [&](const Stmt* x) {
    if (isa<BreakStmt, ContinueStmt, ReturnStmt, GotoStmt, IndirectGotoStmt>(x)) {
      ok = false;
    }
    if (const auto* dre = dyn_cast<DeclRefExpr>(x); dre != nullptr && dre->getDecl() == k) {
      const auto* cast = dyn_cast_or_null<ImplicitCastExpr>(parents.getParent(dre));
      ok = ok && cast != nullptr && cast->getCastKind() == CK_LValueToRValue;
    }
  });
  return ok;
}

/// The statements of a loop body (the body itself when it is not a block).
std::vector<const Stmt*> statements(const Stmt* body) {
  if (const auto* cs = dyn_cast<CompoundStmt>(body)) {
    return std::vector<const Stmt*>(cs->body_begin(), cs->body_end());
  }
  return {body};
}

/// Every mention of `v` in `root` is `v[i]` (with `i` naming `k`, when `k` is given) or
/// `v.size()`.
bool only_subscripts(const Stmt* root, const VarDecl* v, const VarDecl* k) {
  ParentMap parents(const_cast<Stmt*>(root));
  bool ok = true;
  visit_statements(root, [&](const Stmt* x) {
    const auto* dre = dyn_cast<DeclRefExpr>(x);
    if (dre == nullptr || dre->getDecl() != v) {
      return;
    }
    const Stmt* child = dre;
    const Stmt* p = parents.getParent(dre);
    while (p != nullptr && isa<ImplicitCastExpr, ParenExpr>(p)) {
      child = p;
      p = parents.getParent(p);
    }
    if (const auto* me = dyn_cast_or_null<MemberExpr>(p)) {
      const auto* call = dyn_cast_or_null<CXXMemberCallExpr>(parents.getParent(me));
      ok = ok && call != nullptr && is_size_of(call, v);
      return;
    }
    const auto* e = dyn_cast_or_null<Expr>(p);
    const Expr* index = e != nullptr ? subscript_of(e, v) : nullptr;
    const bool is_base =
        index != nullptr &&
        (isa<ArraySubscriptExpr>(e)
             ? cast<ArraySubscriptExpr>(e)->getBase()->IgnoreParenImpCasts() == dre
             : cast<CXXOperatorCallExpr>(e)->getArg(0)->IgnoreParenImpCasts() == dre);
    (void)child;
    ok = ok && is_base && (k == nullptr || is_ref_to(index, k));
  });
  return ok;
}

/// Is `s` the loop that writes all of `v` before anything reads it (Privatisation.h)?
bool fills_whole_buffer(ASTContext& ctx, const Stmt* s, const VarDecl* v, std::uint64_t extent) {
  const auto* fill = dyn_cast<ForStmt>(s);
  const Expr* bound = nullptr;
  const VarDecl* k = fill != nullptr ? counting_loop(ctx, fill, bound) : nullptr;
  if (k == nullptr || !covers(ctx, v, extent, bound) || !plain_body(fill->getBody(), k)) {
    return false;
  }
  bool written = false;
  for (const Stmt* st : statements(fill->getBody())) {
    if (written) {
      if (!only_subscripts(st, v, k)) {
        return false; // after the write, only this iteration's element
      }
      continue;
    }
    const auto* assign = dyn_cast<BinaryOperator>(st);
    const Expr* index = assign != nullptr && assign->getOpcode() == BO_Assign
                            ? subscript_of(assign->getLHS(), v)
                            : nullptr;
    if (index != nullptr && is_ref_to(index, k) && !names_variable(assign->getRHS(), v)) {
      written = true;
    } else if (names_variable(st, v)) {
      return false; // named before it is written
    }
  }
  return written;
}

} // namespace

/// Is `loop` the only code of `v`'s function that names `v` (so nothing before it resized it,
/// took its address, or reads what the loop leaves in it)?
bool named_only_in(const clang::VarDecl* v, const LoopSite& loop, const SourceManager& sm) {
  const auto* fn = dyn_cast_or_null<FunctionDecl>(v->getParentFunctionOrMethod());
  if (fn == nullptr || fn->getBody() == nullptr) {
    return false;
  }
  const SourceRange range = loop.stmt->getSourceRange();
  bool elsewhere = false;
  visit_statements(fn->getBody(), [&](const Stmt* s) {
    const auto* dre = dyn_cast<DeclRefExpr>(s);
    if (dre == nullptr || dre->getDecl() != v) {
      return;
    }
    const SourceLocation l = sm.getExpansionLoc(dre->getLocation());
    elsewhere = elsewhere ||
                sm.isBeforeInTranslationUnit(l, sm.getExpansionLoc(range.getBegin())) ||
                sm.isBeforeInTranslationUnit(sm.getExpansionLoc(range.getEnd()), l);
  });
  return !elsewhere;
}

/// The outside variables the body names, in order of first mention.
std::vector<std::pair<const VarDecl*, SourceLocation>> outside_variables(const LoopSite& loop,
                                                                         const SourceManager& sm) {
  std::vector<std::pair<const VarDecl*, SourceLocation>> out;
  const SourceLocation begin = loop.stmt->getBeginLoc();
  visit_statements(loop.body, [&](const Stmt* x) {
    const auto* dre = dyn_cast<DeclRefExpr>(x);
    const auto* v = dre != nullptr ? dyn_cast<VarDecl>(dre->getDecl()) : nullptr;
    if (v == nullptr || !sm.isBeforeInTranslationUnit(v->getLocation(), begin)) {
      return;
    }
    for (const auto& [seen, loc] : out) {
      if (seen == v) {
        return;
      }
    }
    out.emplace_back(v, dre->getLocation());
  });
  return out;
}

std::vector<PrivateVariable> find_scratch_buffers(ASTContext& ctx, const LoopSite& loop) {
  std::vector<PrivateVariable> out;
  const SourceManager& sm = ctx.getSourceManager();
  const std::vector<const Stmt*> body = statements(loop.body);
  for (const auto& [v, first] : outside_variables(loop, sm)) {
    const std::optional<std::uint64_t> extent = buffer_extent(v->getType());
    if (!extent || !v->hasLocalStorage() || isa<ParmVarDecl>(v) ||
        v->getType()->isReferenceType() || !named_only_in(v, loop, sm)) {
      continue;
    }
    std::size_t i = 0;
    while (i < body.size() && !names_variable(body[i], v)) {
      ++i;
    }
    if (i == body.size() || !fills_whole_buffer(ctx, body[i], v, *extent)) {
      continue;
    }
    bool rest = true;
    for (std::size_t j = i + 1; j < body.size() && rest; ++j) {
      rest = only_subscripts(body[j], v, nullptr);
    }
    if (rest) {
      out.push_back({v, false, first});
    }
  }
  return out;
}

std::vector<const VarDecl*> outside_variables_named(const LoopSite& loop, const std::string& name,
                                                    const SourceManager& sm) {
  std::vector<const VarDecl*> out;
  for (const auto& [v, first] : outside_variables(loop, sm)) {
    if (v->getNameAsString() == name) {
      out.push_back(v);
    }
  }
  return out;
}

} // namespace rotor::frontend

namespace rotor::frontend::lowering {

/// `private(...)` names and the scratch buffers: treated as loop-local where the loop's text
/// names them; the rewriter binds each to the worker's copy.
void LoopLowering::find_privates() {
  auto add = [&](const VarDecl* v, bool from_clause, SourceLocation first) {
    if (!privates_.insert(v).second) {
      return false;
    }
    out_.model.privates.push_back({v->getNameAsString(), from_clause, loc_of(first)});
    out_.privates.push_back({v->getNameAsString(), from_clause, "", ""});
    return true;
  };
  // Scalar temporaries first: a `private(...)` name that is one needs no per-worker state (no
  // iteration reads what another left in it), so the loop stays serial-equivalent.
  for (const ScratchScalar& s : find_scratch_scalars(loop_, sm_)) {
    if (add(s.var, false, s.first_use)) {
      out_.model.privates.back().scalar = true;
    }
    if (s.single_def != nullptr && s.var->getType()->isIntegerType()) {
      scalar_definitions_.emplace(s.var, s.single_def);
    }
  }
  for (const std::string& name : pragma_.privates) {
    const std::vector<const VarDecl*> vars = outside_variables_named(loop_, name, sm_);
    if (vars.empty() && (name == "random" || name == "rand")) {
      // libc's generator (hidden state): each worker gets its own (Private.h, LibcPrivate)
      if (libc_privates_.insert(name).second) {
        out_.model.privates.push_back({name, true, loc_of(pragma_.hash), true});
        out_.libc_generators.push_back(name);
      }
      continue;
    }
    if (vars.empty() && private_member_table(name)) {
      out_.model.privates.push_back({name, true, loc_of(pragma_.hash)});
      continue;
    }
    if (vars.empty()) {
      error(pragma_.hash,
            "private(" + name + "): the loop names no variable '" + name + "' declared outside it");
      continue;
    }
    for (const VarDecl* v : vars) {
      if (is_dist_array(v->getType()) || is_accumulator(v->getType()) ||
          v->getType()->isReferenceType()) {
        error(pragma_.hash, "private(" + name + "): '" + name +
                                "' is a reference, a DistArray or an Accumulator (a DistArray "
                                "the workers may update independently is buffered(" +
                                name + "))");
        continue;
      }
      if (add(v, true, v->getLocation())) {
        out_.model.privates.back().generator = has_seed_member(v->getType());
      }
    }
  }
  for (const PrivateVariable& p : find_scratch_buffers(ctx_, loop_)) {
    add(p.var, false, p.first_use);
  }
}

/// A call to libc's `random()` or `rand()` in a loop whose pragma names it in `private(...)`:
/// accepted (each worker draws from its own generator) when rotor-cc can rewrite the call, that is
/// when it is written in the main file; the call is recorded for the rewrite. False: not such a
/// call (the caller goes on with its checks).
bool LoopLowering::on_libc_generator_call(const CallExpr* call, const FunctionDecl* fd) {
  const std::string name = fd->getNameAsString();
  if (libc_privates_.count(name) == 0 || fd->getNumParams() != 0 ||
      !fd->getDeclContext()->getRedeclContext()->isTranslationUnit() ||
      !sm_.isInSystemHeader(fd->getLocation())) {
    return false;
  }
  const Expr* callee = call->getCallee()->IgnoreParenImpCasts();
  const SourceLocation at = callee->getBeginLoc();
  if (at.isMacroID() || !sm_.isWrittenInMainFile(at)) {
    escape(analysis::Escape::Kind::unknown_call,
           "call to '" + name + "' outside the file rotor-cc compiles (or in a macro): private(" +
               name + ") rewrites only the calls written in this file",
           call->getBeginLoc());
    return true;
  }
  out_.libc_calls.push_back({callee->getSourceRange(), name == "random"
                                                           ? "::rotor::codegen::worker_random"
                                                           : "::rotor::codegen::worker_rand"});
  return true;
}

/// Does the class type `t` (or a base) have a member function named `seed` (a generator that
/// WorkerCopies re-seeds per worker)?
bool LoopLowering::has_seed_member(QualType t) {
  const CXXRecordDecl* rd = t.getNonReferenceType()->getAsCXXRecordDecl();
  if (rd == nullptr || !rd->hasDefinition()) {
    return false;
  }
  bool found = false;
  rd->forallBases([&](const CXXRecordDecl* base) {
    found =
        found || std::any_of(base->method_begin(), base->method_end(), [](const CXXMethodDecl* m) {
          return m->getDeclName().isIdentifier() && m->getName() == "seed";
        });
    return true;
  });
  return found || std::any_of(rd->method_begin(), rd->method_end(), [](const CXXMethodDecl* m) {
           return m->getDeclName().isIdentifier() && m->getName() == "seed";
         });
}

/// The one assignment to an integer scalar temporary (Privatisation.h, ScratchScalar): from
/// here on, its value is the assigned expression's, as for `const int u = r.user;` (every read
/// follows it in the same iteration, and nothing else writes it).
void LoopLowering::on_scalar_definition(const BinaryOperator* bo, Frame& f) {
  const auto* dre = dyn_cast<DeclRefExpr>(bo->getLHS()->IgnoreParens());
  const auto* vd = dre != nullptr ? dyn_cast<VarDecl>(dre->getDecl()) : nullptr;
  const auto it = vd != nullptr ? scalar_definitions_.find(vd) : scalar_definitions_.end();
  if (it != scalar_definitions_.end() && it->second == bo) {
    f.ints[vd] = eval(bo->getRHS(), f);
  }
}

bool LoopLowering::is_private_here(const ValueDecl* d, SourceLocation use) const {
  return privates_.count(d) != 0 && inside_loop(use);
}

} // namespace rotor::frontend::lowering
