#pragma once
/// \file
/// Code the analysis and the compiler may see differently. rotor-cc analyses a file as Clang
/// preprocesses it, and the host compiler (g++) compiles it: under `#ifdef __clang__`,
/// `#if __GNUC__ >= 12`, `#ifdef __AVX2__` or `#if __has_builtin(...)` (any identifier reserved
/// for the implementation) the two may take different branches, so an
/// effect in the branch the analysis skipped would go unseen. Such a conditional inside the loop
/// body, or inside the body of a user function the loop calls, blocks the loop (deny by
/// default). Conditionals in system headers are not recorded: their functions are known by name
/// (KnownCallees.h), not by their bodies.

#include <clang/AST/Stmt.h>
#include <clang/Lex/PPCallbacks.h>

#include <map>
#include <string>
#include <vector>

namespace clang {
class SourceManager;
class LangOptions;
} // namespace clang

namespace rotor::frontend {

/// One `#if ... #endif` (whole) whose condition names the compiler.
struct CompilerConditional {
  clang::SourceRange range; ///< from the `#if` to its `#endif`
  std::string condition;    ///< the condition's text, e.g. `defined(__clang__)`
};

/// Records the compiler conditionals of the user's files while the file is preprocessed.
class CompilerConditionalRecorder : public clang::PPCallbacks {
public:
  CompilerConditionalRecorder(const clang::SourceManager& sm, const clang::LangOptions& lang,
                              std::vector<CompilerConditional>& out)
      : sm_(sm), lang_(lang), out_(out) {}

  void If(clang::SourceLocation loc, clang::SourceRange condition,
          ConditionValueKind value) override;
  void Elif(clang::SourceLocation loc, clang::SourceRange condition, ConditionValueKind value,
            clang::SourceLocation if_loc) override;
  void Ifdef(clang::SourceLocation loc, const clang::Token& name,
             const clang::MacroDefinition& md) override;
  void Ifndef(clang::SourceLocation loc, const clang::Token& name,
              const clang::MacroDefinition& md) override;
  void Endif(clang::SourceLocation loc, clang::SourceLocation if_loc) override;

private:
  void note(clang::SourceLocation if_loc, const std::string& condition);

  const clang::SourceManager& sm_;
  const clang::LangOptions& lang_;
  std::vector<CompilerConditional>& out_;
  std::map<clang::SourceLocation, std::string> open_; ///< by the `#if`'s location
};

/// The first recorded conditional inside `body` or inside the body of a user function it calls
/// (followed through visible definitions outside system headers); nullptr when there is none.
const CompilerConditional* compiler_conditional_in(const std::vector<CompilerConditional>& all,
                                                   const clang::Stmt* body,
                                                   const clang::SourceManager& sm);

} // namespace rotor::frontend
