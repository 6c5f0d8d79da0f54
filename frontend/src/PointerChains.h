#pragma once
/// \file
/// Read-only pointer chains in ragged nests (docs/design/containers.md, "Pointer chains"): the
/// inner bound `C[i]->length` and the keys `C[i]->words[n]` of
/// `for (i < M) for (n < C[i]->length)`, where C is a chain of members from `this` or a variable
/// (`ptrndata->docs`, `data.docs`, `docs`) naming a pointer to rows (`document** docs`: `->`;
/// `document* docs`: `.`). The inspector reads them before the loop through
/// rotor::codegen::ChainReads, which notes every byte it reads so that run_loop can check that the
/// loop writes none of them (else the loop runs as written).

#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>

#include <string>

namespace rotor::frontend {

/// A chain: `this`, a variable, or a field of a chain (`->f` or `.f`), through parentheses and
/// implicit casts.
bool is_pointer_chain(const clang::Expr* e);

/// Two chains that name the same members from the same root (`this->p->docs` and `p->docs`).
bool same_pointer_chain(const clang::Expr* a, const clang::Expr* b);

/// The parts of `C[i]->f` / `C[i]->g[n]`: the chain C and the subscripts i and n as written.
struct ChainParts {
  const clang::Expr* chain = nullptr;
  const clang::Expr* row = nullptr;    ///< i of `C[i]`
  const clang::Expr* column = nullptr; ///< n of `->g[n]`; nullptr for a bound
};

/// `C[i]->f` or `C[i].f` (through integer casts), C a chain of pointer type (C[i] a built-in
/// subscript), f an integer field (not bool): f, with its parts. Else nullptr.
const clang::FieldDecl* chain_bound_parts(const clang::Expr* bound, ChainParts& parts);
/// The same, with i the variable `i`: f, with C in `chain`.
const clang::FieldDecl* chain_bound_field(const clang::Expr* bound, const clang::VarDecl* i,
                                          const clang::Expr*& chain);

/// `C[i]->g[n]` or `C[i].g[n]`, g a pointer-to-integer field (not bool): g, with its parts.
/// Else nullptr.
const clang::FieldDecl* chain_key_parts(const clang::Expr* e, ChainParts& parts);

/// The root variable of a chain (nullptr for `this`).
const clang::VarDecl* pointer_chain_root(const clang::Expr* chain);

/// `e` (`C[i]->f` or `C[i]->g[n]`) as the loop writes it, with the subscripts `row` and `column`
/// (`corpus->docs[m]->words[n]` for a helper's `corpus->docs[d]->words[i]`).
std::string chain_text(const clang::Expr* e, const std::string& row, const std::string& column);

/// C++ text that reads `e` (`C[i]->f` or `C[i]->g[n]`, through parentheses and implicit casts)
/// noting each scalar it loads in `reads` (a rotor::codegen::ChainReads):
/// `reads.note((reads.note((reads.note((this)->p))->docs))[i])` ... `->length`. The row
/// subscript is written `row` and the column subscript `column` (the inspector's index names).
std::string noted_chain_text(const clang::Expr* e, const std::string& reads, const std::string& row,
                             const std::string& column);

} // namespace rotor::frontend
