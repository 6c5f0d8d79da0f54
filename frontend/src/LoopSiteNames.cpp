#include "LoopSiteNames.h"

#include <clang/AST/DeclCXX.h>
#include <clang/AST/PrettyPrinter.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <llvm/Support/raw_ostream.h>

#include <vector>

namespace rotor::frontend {
namespace {

using namespace clang;

/// The function the loop is in, through the lambdas around it (their variables are in scope).
const FunctionDecl* outermost_function(const DeclContext* dc) {
  const FunctionDecl* fn = nullptr;
  for (; dc != nullptr; dc = dc->getParent()) {
    if (const auto* f = dyn_cast<FunctionDecl>(dc)) {
      fn = f;
      continue;
    }
    const auto* record = dyn_cast<CXXRecordDecl>(dc);
    if (record == nullptr || !record->isLambda()) {
      break;
    }
  }
  return fn;
}

/// Every variable (parameters included) named `name` in `fn`, in any scope.
class VariablesNamed : public RecursiveASTVisitor<VariablesNamed> {
public:
  explicit VariablesNamed(llvm::StringRef name) : name_(name) {}
  bool VisitVarDecl(VarDecl* v) {
    if (v->getName() == name_) {
      found.push_back(v->getCanonicalDecl());
    }
    return true;
  }
  std::vector<const VarDecl*> found;

private:
  llvm::StringRef name_;
};

std::vector<const VarDecl*> variables_named(const FunctionDecl* fn, llvm::StringRef name) {
  VariablesNamed v(name);
  if (fn != nullptr) {
    v.TraverseDecl(const_cast<FunctionDecl*>(fn));
  }
  return v.found;
}

enum class Lookup { none, finds_d, finds_other };

/// Member lookup of `name` in `record` and its bases.
Lookup member_lookup(const CXXRecordDecl* record, DeclarationName name, const Decl* d) {
  if (record == nullptr || !record->hasDefinition()) {
    return Lookup::none;
  }
  for (const NamedDecl* found : record->lookup(name)) {
    return found->getCanonicalDecl() == d ? Lookup::finds_d : Lookup::finds_other;
  }
  for (const CXXBaseSpecifier& base : record->bases()) {
    if (Lookup l = member_lookup(base.getType()->getAsCXXRecordDecl(), name, d);
        l != Lookup::none) {
      return l;
    }
  }
  return Lookup::none;
}

/// Unqualified lookup of `d`'s name from `fn`'s context outward, past `fn`'s own scopes: its
/// class (a method's) and the enclosing namespaces.
Lookup outer_lookup(const FunctionDecl* fn, const Decl* d, DeclarationName name) {
  const DeclContext* dc = fn != nullptr ? fn->getParent() : nullptr;
  for (; dc != nullptr; dc = dc->getParent()) {
    if (const auto* record = dyn_cast<CXXRecordDecl>(dc)) {
      if (Lookup l = member_lookup(record, name, d); l != Lookup::none) {
        return l;
      }
      continue;
    }
    if (!dc->isFileContext()) {
      continue;
    }
    for (const NamedDecl* found : dc->lookup(name)) {
      return found->getCanonicalDecl() == d ? Lookup::finds_d : Lookup::finds_other;
    }
  }
  return Lookup::none;
}

std::string qualified(const VarDecl* v) {
  PrintingPolicy policy(v->getASTContext().getLangOpts());
  policy.SuppressUnwrittenScope = true; // unnamed and inline namespaces
  std::string out;
  llvm::raw_string_ostream os(out);
  v->printQualifiedName(os, policy);
  return "::" + os.str();
}

} // namespace

std::string loop_site_name(const ValueDecl* d, const DeclContext* loop_context) {
  const FunctionDecl* fn = outermost_function(loop_context);
  const std::string name = d->getNameAsString();
  const Decl* canonical = d->getCanonicalDecl();
  const std::vector<const VarDecl*> locals = variables_named(fn, d->getName());
  if (isa<FieldDecl>(d)) { // a member of the loop's object
    return locals.empty() && outer_lookup(fn, canonical, d->getDeclName()) == Lookup::finds_d
               ? name
               : "this->" + name;
  }
  const auto* v = dyn_cast<VarDecl>(d);
  if (v == nullptr) {
    return "";
  }
  if (v->isFileVarDecl() || v->isStaticDataMember()) {
    return locals.empty() && outer_lookup(fn, canonical, d->getDeclName()) == Lookup::finds_d
               ? name
               : qualified(v);
  }
  return locals.size() == 1 && locals.front() == canonical ? name : "";
}

} // namespace rotor::frontend
