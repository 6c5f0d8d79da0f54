#pragma once
/// \file
/// Bodies of helpers defined in another source file of the program: a function or method that a
/// loop's body reaches, declared but not defined in the compiled translation unit, is looked up
/// in the program's other sources, parsed with the compiled file's flags, and its one definition
/// imported into the compiled file's ASTContext (clang::ASTImporter, as clang's
/// CrossTranslationUnit does), so that the lowering analyses it as if it were visible
/// (docs/design/other-sources.md). Nothing is emitted for the other file.

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>

#include <memory>
#include <string>
#include <vector>

namespace rotor::frontend {

class OtherSources {
public:
  /// `main_path`: the compiled file; `program_sources`: the sources on the rotor-cc command line;
  /// `parse_args`: the arguments the compiled file was parsed with (-I, -D, -std, ...).
  OtherSources(clang::ASTContext& ctx, std::string main_path,
               std::vector<std::string> program_sources, std::vector<std::string> parse_args);
  ~OtherSources();
  OtherSources(const OtherSources&) = delete;
  OtherSources& operator=(const OtherSources&) = delete;

  /// Imports the definitions of the functions `body` reaches (calls, constructions, destructions
  /// of locals; through visible and imported bodies) that this translation unit declares without
  /// a body and exactly one other source defines. Returns one line per imported body reached:
  /// "body of 'Matrix::get_value' read from matrix.cpp:32".
  std::vector<std::string> import_reached(const clang::Stmt* body);

  /// Why the body of `fd` is still not visible after a search ("two definitions: a.cpp:10,
  /// b.cpp:12", "no other source of the program defines it"); empty when none was made.
  std::string why_not_imported(const clang::FunctionDecl* fd) const;

  struct Impl;

private:
  std::unique_ptr<Impl> impl_;
};

} // namespace rotor::frontend
