#pragma once
/// \file
/// The runtime header of a program that includes none: a plain serial file whose only Rotor is
/// the pragma (`std::vector` records and tables, no `#include <rotor/rotor.h>`) is rewritten into
/// calls to `::rotor::codegen`, which need that header. rotor-cc then starts the rewritten file
/// with
///
///     #include <rotor/rotor.h>
///     #line 1 "mf.cpp"
///
/// so the calls compile and every later line keeps its number in the host compiler's messages.

#include <clang/AST/ASTContext.h>
#include <clang/Rewrite/Core/Rewriter.h>

#include <string>

namespace rotor::frontend {

/// Inserts the include (and the `#line` back to line 1 of `file_name`) at the start of the main
/// file unless the translation unit already includes `rotor/rotor.h`; true when it inserted.
bool insert_runtime_include(clang::ASTContext& ctx, clang::Rewriter& rewriter,
                            const std::string& file_name);

/// Ends the main file with the weak definition of `rotor_cc_built_program`, which tells the
/// runtime the program was built by rotor-cc (runtime/src/QuietRanks.cpp: under mpirun, ranks
/// other than 0 are quiet from the process's start).
void insert_program_mark(clang::ASTContext& ctx, clang::Rewriter& rewriter);

} // namespace rotor::frontend
