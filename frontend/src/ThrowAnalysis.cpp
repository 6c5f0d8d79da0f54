#include "ThrowAnalysis.h"

#include "KnownCallees.h"
#include "RotorTypes.h"

#include <clang/AST/Attr.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/DeclTemplate.h>
#include <clang/AST/ExprCXX.h>

#include <unordered_map>

namespace rotor::frontend {
namespace {

using namespace clang;

/// The type promises not to throw (noexcept, throw(), nothrow attribute), or a builtin.
bool promises_nothrow(const FunctionDecl* fd) {
  if (fd->hasAttr<NoThrowAttr>() || fd->getBuiltinID() != 0) {
    return true;
  }
  const auto* proto = fd->getType()->getAs<FunctionProtoType>();
  return proto != nullptr && proto->isNothrow();
}

/// An Eigen Matrix or Array with a dynamic number of rows or columns (its storage is allocated).
bool is_dynamic_eigen_plain(QualType t) {
  const auto* rd = t.getNonReferenceType()->getAsCXXRecordDecl();
  const auto* spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(rd);
  if (spec == nullptr || !is_eigen_decl(spec) ||
      (spec->getName() != "Matrix" && spec->getName() != "Array")) {
    return false;
  }
  const TemplateArgumentList& args = spec->getTemplateArgs();
  for (unsigned i = 1; i < args.size() && i < 3; ++i) {
    if (args[i].getKind() == TemplateArgument::Integral && args[i].getAsIntegral() == -1) {
      return true;
    }
  }
  return false;
}

/// An Eigen function that may allocate: it makes (returns or constructs) a dynamic-size Matrix
/// or Array, or changes one (a non-const method of it: assignment, resize, ...).
bool eigen_may_allocate(const FunctionDecl* fd) {
  if (is_dynamic_eigen_plain(fd->getReturnType()) && !fd->getReturnType()->isReferenceType()) {
    return true;
  }
  if (const auto* md = dyn_cast<CXXMethodDecl>(fd)) {
    const QualType object = md->getThisObjectType();
    return (isa<CXXConstructorDecl>(md) || !md->isConst()) && is_dynamic_eigen_plain(object);
  }
  return false;
}

/// A function without a visible body (system headers' bodies are not parsed) known not to throw.
bool known_nothrow(const FunctionDecl* fd) {
  const auto* md = dyn_cast<CXXMethodDecl>(fd);
  if ((md != nullptr && md->isTrivial()) || is_known_pure_function(fd)) {
    return true;
  }
  if (md != nullptr && is_element_accessor(md) && md->getName() != "at") {
    return true;
  }
  if (is_rotor_decl(fd)) {
    return true; // a checked build's access check reports a Rotor bug, not a user exception
  }
  return is_eigen_decl(fd) && !eigen_may_allocate(fd);
}

class ThrowFinder {
public:
  bool stmt_may_throw(const Stmt* s) {
    if (s == nullptr) {
      return false;
    }
    if (node_may_throw(s)) {
      return true;
    }
    for (const Stmt* child : s->children()) {
      if (stmt_may_throw(child)) {
        return true;
      }
    }
    return false;
  }

private:
  /// What `s` itself does (its children are walked by the caller).
  bool node_may_throw(const Stmt* s) {
    if (isa<CXXThrowExpr>(s)) {
      return true;
    }
    if (const auto* ne = dyn_cast<CXXNewExpr>(s)) {
      return ne->getOperatorNew() == nullptr || !promises_nothrow(ne->getOperatorNew());
    }
    if (const auto* dc = dyn_cast<CXXDynamicCastExpr>(s)) {
      return dc->getTypeAsWritten()->isReferenceType();
    }
    if (const auto* te = dyn_cast<CXXTypeidExpr>(s)) {
      return te->isPotentiallyEvaluated();
    }
    if (const auto* ce = dyn_cast<CXXConstructExpr>(s)) {
      return function_may_throw(ce->getConstructor());
    }
    if (const auto* call = dyn_cast<CallExpr>(s)) {
      return call_may_throw(call);
    }
    return false;
  }

  bool call_may_throw(const CallExpr* call) {
    const FunctionDecl* fd = call->getDirectCallee();
    if (fd == nullptr) { // through a pointer, std::function's target, ...
      const QualType callee = call->getCallee()->getType();
      const QualType fn = callee->isPointerType() ? callee->getPointeeType() : callee;
      const auto* proto = fn->getAs<FunctionProtoType>();
      return proto == nullptr || !proto->isNothrow();
    }
    if (const auto* mc = dyn_cast<CXXMemberCallExpr>(call)) {
      const CXXMethodDecl* md = mc->getMethodDecl();
      if (md != nullptr && md->isVirtual() && mc->getImplicitObjectArgument() != nullptr &&
          md->getDevirtualizedMethod(mc->getImplicitObjectArgument(), false) == nullptr) {
        return !promises_nothrow(md); // another override may run
      }
    }
    return function_may_throw(fd);
  }

  bool function_may_throw(const FunctionDecl* fd) {
    if (fd == nullptr) {
      return true;
    }
    if (promises_nothrow(fd)) {
      return false;
    }
    const FunctionDecl* def = nullptr;
    if (!fd->hasBody(def) || def == nullptr || def->getBody() == nullptr) {
      return !known_nothrow(fd);
    }
    auto [it, fresh] = memo_.try_emplace(def, false); // recursion: assume no throw meanwhile
    if (!fresh) {
      return it->second;
    }
    bool result = stmt_may_throw(def->getBody());
    if (const auto* ctor = dyn_cast<CXXConstructorDecl>(def); ctor != nullptr && !result) {
      for (const CXXCtorInitializer* init : ctor->inits()) {
        result = result || stmt_may_throw(init->getInit());
      }
    }
    memo_[def] = result;
    return result;
  }

  std::unordered_map<const FunctionDecl*, bool> memo_;
};

} // namespace

bool may_throw(const clang::Stmt* body) {
  return ThrowFinder().stmt_may_throw(body);
}

} // namespace rotor::frontend
