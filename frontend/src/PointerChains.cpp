#include "PointerChains.h"

#include <clang/AST/ExprCXX.h>

namespace rotor::frontend {

using namespace clang;

namespace {

const Expr* bare(const Expr* e) {
  return e == nullptr ? nullptr : e->IgnoreParenImpCasts();
}

/// Through parentheses, implicit casts and explicit integer casts (`(int)p->docs[m]->length`).
const Expr* without_integer_casts(const Expr* e) {
  for (;;) {
    e = bare(e);
    const auto* cast = dyn_cast_or_null<ExplicitCastExpr>(e);
    if (cast == nullptr || !cast->getType()->isIntegerType()) {
      return e;
    }
    e = cast->getSubExpr();
  }
}

bool names_variable(const Expr* e, const VarDecl* v) {
  const auto* dre = dyn_cast_or_null<DeclRefExpr>(bare(e));
  return dre != nullptr && dre->getDecl() == v;
}

bool is_integer(QualType t) {
  return t->isIntegerType() && !t->isBooleanType();
}

/// `C[i]` (built-in subscript, C a chain of pointer type): C (and i in `parts`), else nullptr.
const Expr* chain_row(const Expr* e, ChainParts& parts) {
  const auto* ase = dyn_cast_or_null<ArraySubscriptExpr>(bare(e));
  if (ase == nullptr || !isa<DeclRefExpr>(bare(ase->getIdx()))) {
    return nullptr;
  }
  const Expr* chain = bare(ase->getBase()); // the pointer itself, under its lvalue-to-rvalue load
  if (!chain->getType()->isPointerType() || !is_pointer_chain(chain)) {
    return nullptr;
  }
  parts.chain = chain;
  parts.row = ase->getIdx();
  return chain;
}

/// `C[i]->f` / `C[i].f`: the member expression's field f, with its parts; else nullptr.
const FieldDecl* row_member(const Expr* e, ChainParts& parts) {
  const auto* me = dyn_cast_or_null<MemberExpr>(bare(e));
  const auto* fd = me != nullptr ? dyn_cast<FieldDecl>(me->getMemberDecl()) : nullptr;
  if (fd == nullptr || fd->getType()->isReferenceType()) {
    return nullptr;
  }
  const Expr* row = bare(me->getBase());
  if (me->isArrow()) { // `C[i]->f`: the row element is a pointer to the object
    const auto* ase = dyn_cast<ArraySubscriptExpr>(row);
    if (ase == nullptr || !ase->getType()->isPointerType()) {
      return nullptr;
    }
  } else if (row->getType()->isPointerType()) {
    return nullptr;
  }
  return chain_row(row, parts) != nullptr ? fd : nullptr;
}

std::string note(const std::string& reads, const std::string& lvalue) {
  return reads + ".note(" + lvalue + ")";
}

bool scalar(QualType t) {
  return t->isPointerType() || t->isIntegerType();
}

} // namespace

bool is_pointer_chain(const Expr* e) {
  e = bare(e);
  if (e == nullptr) {
    return false;
  }
  if (isa<CXXThisExpr>(e)) {
    return true;
  }
  if (const auto* dre = dyn_cast<DeclRefExpr>(e)) {
    return isa<VarDecl>(dre->getDecl());
  }
  const auto* me = dyn_cast<MemberExpr>(e);
  const auto* fd = me != nullptr ? dyn_cast<FieldDecl>(me->getMemberDecl()) : nullptr;
  return fd != nullptr && !fd->getType()->isReferenceType() && is_pointer_chain(me->getBase());
}

bool same_pointer_chain(const Expr* a, const Expr* b) {
  a = bare(a);
  b = bare(b);
  if (a == nullptr || b == nullptr) {
    return false;
  }
  if (isa<CXXThisExpr>(a) || isa<CXXThisExpr>(b)) {
    return isa<CXXThisExpr>(a) && isa<CXXThisExpr>(b);
  }
  const auto* da = dyn_cast<DeclRefExpr>(a);
  const auto* db = dyn_cast<DeclRefExpr>(b);
  if (da != nullptr || db != nullptr) {
    return da != nullptr && db != nullptr && da->getDecl() == db->getDecl();
  }
  const auto* ma = dyn_cast<MemberExpr>(a);
  const auto* mb = dyn_cast<MemberExpr>(b);
  return ma != nullptr && mb != nullptr && ma->getMemberDecl() == mb->getMemberDecl() &&
         ma->isArrow() == mb->isArrow() && same_pointer_chain(ma->getBase(), mb->getBase());
}

const FieldDecl* chain_bound_parts(const Expr* bound, ChainParts& parts) {
  const FieldDecl* f = row_member(without_integer_casts(bound), parts);
  return f != nullptr && is_integer(f->getType()) ? f : nullptr;
}

const FieldDecl* chain_bound_field(const Expr* bound, const VarDecl* i, const Expr*& chain) {
  ChainParts parts;
  const FieldDecl* f = chain_bound_parts(bound, parts);
  chain = parts.chain;
  return f != nullptr && names_variable(parts.row, i) ? f : nullptr;
}

const FieldDecl* chain_key_parts(const Expr* e, ChainParts& parts) {
  const auto* ase = dyn_cast_or_null<ArraySubscriptExpr>(bare(e));
  if (ase == nullptr || !isa<DeclRefExpr>(bare(ase->getIdx())) || !is_integer(ase->getType())) {
    return nullptr;
  }
  const FieldDecl* g = row_member(ase->getBase(), parts);
  parts.column = ase->getIdx();
  return g != nullptr && g->getType()->isPointerType() ? g : nullptr;
}

const VarDecl* pointer_chain_root(const Expr* chain) {
  chain = bare(chain);
  if (const auto* me = dyn_cast_or_null<MemberExpr>(chain)) {
    return pointer_chain_root(me->getBase());
  }
  const auto* dre = dyn_cast_or_null<DeclRefExpr>(chain);
  return dre != nullptr ? dyn_cast<VarDecl>(dre->getDecl()) : nullptr;
}

std::string chain_text(const Expr* e, const std::string& row, const std::string& column) {
  e = bare(e);
  if (isa<CXXThisExpr>(e)) {
    return "this";
  }
  if (const auto* dre = dyn_cast<DeclRefExpr>(e)) {
    return dre->getDecl()->getNameAsString();
  }
  if (const auto* me = dyn_cast<MemberExpr>(e)) {
    const auto* self = dyn_cast<CXXThisExpr>(bare(me->getBase()));
    const std::string field = me->getMemberDecl()->getNameAsString();
    return self != nullptr && self->isImplicit()
               ? field
               : chain_text(me->getBase(), row, column) + (me->isArrow() ? "->" : ".") + field;
  }
  const auto* ase = cast<ArraySubscriptExpr>(e);
  return chain_text(ase->getBase(), row, column) + "[" +
         (is_pointer_chain(ase->getBase()) ? row : column) + "]";
}

std::string noted_chain_text(const Expr* e, const std::string& reads, const std::string& row,
                             const std::string& column) {
  e = bare(e);
  if (isa<CXXThisExpr>(e)) {
    return "this";
  }
  if (const auto* dre = dyn_cast<DeclRefExpr>(e)) {
    const std::string name = dre->getDecl()->getNameAsString();
    return scalar(dre->getType()) ? note(reads, name) : name; // a reference: its referent
  }
  if (const auto* me = dyn_cast<MemberExpr>(e)) {
    const std::string text = "(" + noted_chain_text(me->getBase(), reads, row, column) + ")" +
                             (me->isArrow() ? "->" : ".") + me->getMemberDecl()->getNameAsString();
    return scalar(me->getType()) ? note(reads, text) : text;
  }
  const auto* ase = cast<ArraySubscriptExpr>(e);
  const bool row_subscript = is_pointer_chain(ase->getBase()); // `C[i]`, else `->g[n]`
  const std::string text = "(" + noted_chain_text(ase->getBase(), reads, row, column) + ")[" +
                           (row_subscript ? row : column) + "]";
  return scalar(ase->getType()) ? note(reads, text) : text;
}

} // namespace rotor::frontend
