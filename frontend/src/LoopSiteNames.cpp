#include "LoopSiteNames.h"

#include <clang/AST/DeclCXX.h>
#include <clang/AST/PrettyPrinter.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
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

/// Every declaration named `name` inside `fn` (parameters, locals in any scope, local enumerators
/// and classes, using-declarations, lambdas' init-captures): any of them may hide an outer `name`
/// somewhere in the function.
class DeclarationsNamed : public RecursiveASTVisitor<DeclarationsNamed> {
public:
  DeclarationsNamed(const FunctionDecl* fn, llvm::StringRef name) : fn_(fn), name_(name) {}
  bool VisitNamedDecl(NamedDecl* d) {
    if (d != fn_ && d->getDeclName().isIdentifier() && d->getName() == name_) {
      found.push_back(d->getCanonicalDecl());
    }
    return true;
  }
  std::vector<const Decl*> found;

private:
  const FunctionDecl* fn_;
  llvm::StringRef name_;
};

std::vector<const Decl*> declarations_named(const FunctionDecl* fn, llvm::StringRef name) {
  DeclarationsNamed v(fn, name);
  if (fn != nullptr) {
    v.TraverseDecl(const_cast<FunctionDecl*>(fn));
  }
  return v.found;
}

enum class Lookup { none, finds_d, finds_other };

/// What a lookup that found `found` found: `d` alone, or something else too.
Lookup found_in(DeclContextLookupResult found, const Decl* d) {
  if (found.empty()) {
    return Lookup::none;
  }
  return std::all_of(found.begin(), found.end(),
                     [&](const NamedDecl* n) { return n->getCanonicalDecl() == d; })
             ? Lookup::finds_d
             : Lookup::finds_other;
}

/// Member lookup of `name` in `record` and its bases.
Lookup member_lookup(const CXXRecordDecl* record, DeclarationName name, const Decl* d) {
  if (record == nullptr || !record->hasDefinition()) {
    return Lookup::none;
  }
  if (Lookup l = found_in(record->lookup(name), d); l != Lookup::none) {
    return l;
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
  for (const DeclContext* dc = fn != nullptr ? fn->getParent() : nullptr; dc != nullptr;
       dc = dc->getParent()) {
    Lookup l = Lookup::none;
    if (const auto* record = dyn_cast<CXXRecordDecl>(dc)) {
      l = member_lookup(record, name, d);
    } else if (dc->isFileContext()) {
      l = found_in(dc->lookup(name), d);
    }
    if (l != Lookup::none) {
      return l;
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
  const std::vector<const Decl*> inside = declarations_named(fn, d->getName());
  const auto* v = dyn_cast<VarDecl>(d);
  const bool outside_fn =
      isa<FieldDecl>(d) || (v != nullptr && (v->isFileVarDecl() || v->isStaticDataMember()));
  if (!outside_fn) { // a local of the loop's function, the only declaration of its name there
    return v != nullptr && inside.size() == 1 && inside.front() == canonical ? name : "";
  }
  if (inside.empty() && outer_lookup(fn, canonical, d->getDeclName()) == Lookup::finds_d) {
    return name;
  }
  return v != nullptr ? qualified(v) : "this->" + name; // a member of the loop's object
}

} // namespace rotor::frontend
