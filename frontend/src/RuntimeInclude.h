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

} // namespace rotor::frontend
