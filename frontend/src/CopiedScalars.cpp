#include "CopiedScalars.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/Basic/SourceManager.h>

#include <algorithm>
#include <map>

namespace rotor::frontend {
namespace {

using namespace clang;

/// Where a mention of a variable stands: in the loop, in a lambda, and how it is used.
struct Mention {
  bool in_loop = false;
  bool in_lambda = false;
  bool read = false;          ///< lvalue-to-rvalue
  bool write = false;         ///< assigned, compound-assigned, incremented or decremented
  bool odr_use = false;       ///< not a constant the compiler folds
  bool const_ref_arg = false; ///< a call's argument for a `const T&` parameter (const_ref_argument)
};

/// `call`'s parameter for its argument `e`, or nullptr (the object of a member call, a variadic
/// argument, a callee Clang does not name).
const ParmVarDecl* parameter_for(const CallExpr* call, const Expr* e) {
  const FunctionDecl* callee = call->getDirectCallee();
  if (callee == nullptr) {
    return nullptr;
  }
  // An operator call on a member operator passes the object as its first argument.
  const unsigned shift = isa<CXXOperatorCallExpr>(call) && isa<CXXMethodDecl>(callee) ? 1 : 0;
  for (unsigned i = shift; i < call->getNumArgs(); ++i) {
    if (call->getArg(i) == e && i - shift < callee->getNumParams()) {
      return callee->getParamDecl(i - shift);
    }
  }
  return nullptr;
}

/// `e` (a mention of `v`) is passed to a `const T&` parameter (T: v's type) of a call that returns
/// neither a reference nor a pointer (`lr * h` through Eigen's `operator*(const Scalar&, ...)`):
/// the reference cannot outlive the call through its result, so it sees what a read would.
bool const_ref_argument(const Stmt* parent, const Expr* e, const VarDecl* v) {
  const auto* call = dyn_cast_or_null<CallExpr>(parent);
  const ParmVarDecl* param = call != nullptr ? parameter_for(call, e) : nullptr;
  if (param == nullptr) {
    return false;
  }
  const QualType t = param->getType();
  const QualType returned = call->getCallReturnType(v->getASTContext());
  return t->isLValueReferenceType() && t->getPointeeType().isConstQualified() &&
         !t->getPointeeType().isVolatileQualified() &&
         t->getPointeeType().getCanonicalType().getUnqualifiedType() ==
             v->getType().getCanonicalType().getUnqualifiedType() &&
         !returned->isReferenceType() && !returned->isPointerType();
}

/// How `parent` uses `e`, one of its children (parentheses and const-adding casts skipped).
void classify(const Stmt* parent, const Expr* e, const VarDecl* v, Mention& m) {
  m.const_ref_arg = const_ref_argument(parent, e, v);
  if (const auto* cast = dyn_cast_or_null<ImplicitCastExpr>(parent)) {
    m.read = cast->getCastKind() == CK_LValueToRValue;
  } else if (const auto* bin = dyn_cast_or_null<BinaryOperator>(parent)) {
    m.write = bin->isAssignmentOp() && bin->getLHS() == e;
  } else if (const auto* un = dyn_cast_or_null<UnaryOperator>(parent)) {
    m.write = un->isIncrementDecrementOp();
  }
}

/// Walks a function's body, noting each mention of a local variable with its context.
class MentionWalk {
public:
  explicit MentionWalk(const Stmt* loop) : loop_(loop) {}

  /// `parent`: what uses `s`'s value, and `operand` the child of it that holds `s`.
  void walk(const Stmt* s, const Stmt* parent, const Expr* operand, bool in_loop, bool in_lambda) {
    if (s == nullptr) {
      return;
    }
    in_loop = in_loop || s == loop_;
    if (const auto* dre = dyn_cast<DeclRefExpr>(s)) {
      if (const auto* v = dyn_cast<VarDecl>(dre->getDecl())) {
        note(v, dre, operand != nullptr ? operand : dre, parent, in_loop, in_lambda);
      }
    }
    // Parentheses and const-adding casts are transparent: the parent of `(v)` is what holds the
    // parentheses.
    const auto* implicit = dyn_cast<ImplicitCastExpr>(s);
    const bool transparent =
        isa<ParenExpr>(s) || (implicit != nullptr && implicit->getCastKind() == CK_NoOp);
    for (const Stmt* c : s->children()) {
      if (transparent) {
        walk(c, parent, operand != nullptr ? operand : cast_or_null<Expr>(s), in_loop, in_lambda);
      } else {
        walk(c, s, nullptr, in_loop, in_lambda);
      }
    }
    if (const auto* lambda = dyn_cast<LambdaExpr>(s)) {
      walk(lambda->getBody(), lambda, nullptr, in_loop, true);
    }
  }

  const std::map<const VarDecl*, std::vector<Mention>>& mentions() const { return mentions_; }
  const std::vector<const VarDecl*>& in_loop_order() const { return order_; }

private:
  /// `e`: the mention `dre` of `v`, or the outermost parentheses or cast around it.
  void note(const VarDecl* v, const DeclRefExpr* dre, const Expr* e, const Stmt* parent,
            bool in_loop, bool in_lambda) {
    Mention m;
    m.in_loop = in_loop;
    m.in_lambda = in_lambda;
    m.odr_use = dre->isNonOdrUse() == NOUR_None;
    classify(parent, e, v, m);
    std::vector<Mention>& all = mentions_[v];
    if (in_loop &&
        std::none_of(all.begin(), all.end(), [](const Mention& x) { return x.in_loop; })) {
      order_.push_back(v);
    }
    all.push_back(m);
  }

  const Stmt* loop_;
  std::map<const VarDecl*, std::vector<Mention>> mentions_;
  std::vector<const VarDecl*> order_;
};

bool is_template_code(const FunctionDecl* fn) {
  return fn->isDependentContext() || fn->isTemplateInstantiation() ||
         fn->getTemplateInstantiationPattern() != nullptr;
}

/// A local of `fn` of a type a by-value capture copies exactly (the declaration half of the rule).
bool copyable_local(const VarDecl* v, const FunctionDecl* fn, const LoopSite& loop,
                    const SourceManager& sm) {
  const QualType t = v->getType();
  return v->getDeclContext() == fn && v->hasLocalStorage() && !isa<DecompositionDecl>(v) &&
         !t->isReferenceType() && !t.isVolatileQualified() &&
         (t->isArithmeticType() || t->isEnumeralType()) &&
         sm.isBeforeInTranslationUnit(v->getLocation(), loop.stmt->getBeginLoc());
}

/// The mentions half of the rule.
bool only_read_in_loop(const std::vector<Mention>& mentions, bool parallel_plan) {
  bool read = false;
  for (const Mention& m : mentions) {
    if (m.in_loop) {
      const bool reads = m.read || (parallel_plan && m.const_ref_arg);
      if (!reads && m.odr_use) {
        return false;
      }
      read = read || (reads && m.odr_use);
    } else if (m.in_lambda || (!m.read && !m.write)) {
      return false;
    }
  }
  return read;
}

} // namespace

std::vector<const VarDecl*> copied_scalars(const LoopSite& loop, const std::set<std::string>& bound,
                                           bool parallel_plan) {
  std::vector<const VarDecl*> out;
  const auto* fn =
      loop.var != nullptr ? dyn_cast<FunctionDecl>(loop.var->getDeclContext()) : nullptr;
  if (fn == nullptr || fn->getBody() == nullptr || is_template_code(fn)) {
    return out;
  }
  const SourceManager& sm = fn->getASTContext().getSourceManager();
  MentionWalk walk(loop.stmt);
  walk.walk(fn->getBody(), nullptr, nullptr, false, false);
  for (const VarDecl* v : walk.in_loop_order()) {
    if (copyable_local(v, fn, loop, sm) && bound.count(v->getNameAsString()) == 0 &&
        only_read_in_loop(walk.mentions().at(v), parallel_plan)) {
      out.push_back(v);
    }
  }
  return out;
}

} // namespace rotor::frontend
