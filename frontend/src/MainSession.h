#pragma once
/// \file
/// The session of a program that writes none: when the rewritten file defines `main` and names
/// no `rotor::Session`, rotor-cc starts main's body with
/// `::rotor::codegen::MainSession rotor_main_session(argc, argv);`
/// (docs/design/codegen-contract.md, "Main"), so `--rotor-*` flags leave argv before the program
/// reads it and the runtime ends when main returns.

#include <clang/AST/ASTContext.h>
#include <clang/Rewrite/Core/Rewriter.h>

namespace rotor::frontend {

/// Inserts the MainSession statement into the main file's `main`; false when the file has no
/// `main` with a body, or names `rotor::Session` anywhere (the program manages its session).
bool insert_main_session(clang::ASTContext& ctx, clang::Rewriter& rewriter);

} // namespace rotor::frontend
