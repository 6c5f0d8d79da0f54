#include "CompilerConditionals.h"

#include <clang/AST/Decl.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>
#include <clang/Lex/Token.h>

#include <regex>
#include <set>

namespace rotor::frontend {
namespace {

using namespace clang;

/// The condition names an identifier reserved for the implementation (`__clang__`, `__GNUC__`,
/// `__OPTIMIZE__`, `__AVX2__`, `__SANITIZE_THREAD__`, `_OPENMP`, `__has_builtin`, ...): its
/// value may differ between Clang's analysis parse and the host compiler's build (compiler,
/// optimisation level, target ISA, sanitizers). `__cplusplus` and `__has_include` are the same
/// for both and stay allowed.
bool names_the_compiler(const std::string& condition) {
  static const std::regex reserved(R"(\b(__\w+|_[A-Z]\w*)\b)");
  for (auto it = std::sregex_iterator(condition.begin(), condition.end(), reserved);
       it != std::sregex_iterator(); ++it) {
    const std::string name = it->str();
    if (name != "__cplusplus" && name != "__has_include" && name != "__has_include_next") {
      return true;
    }
  }
  return false;
}

bool overlaps(SourceRange a, SourceRange b, const SourceManager& sm) {
  return a.isValid() && b.isValid() && !sm.isBeforeInTranslationUnit(a.getEnd(), b.getBegin()) &&
         !sm.isBeforeInTranslationUnit(b.getEnd(), a.getBegin());
}

/// The source ranges of `body` and of every user function body reachable from it by calls.
class ReachableBodies {
public:
  explicit ReachableBodies(const SourceManager& sm) : sm_(sm) {}
  std::vector<SourceRange> from(const Stmt* body) {
    ranges_.push_back(body->getSourceRange());
    walk(body);
    return ranges_;
  }

private:
  void walk(const Stmt* s) {
    if (s == nullptr) {
      return;
    }
    if (const auto* call = dyn_cast<CallExpr>(s)) {
      follow(call->getDirectCallee());
    } else if (const auto* ce = dyn_cast<CXXConstructExpr>(s)) {
      follow(ce->getConstructor());
    }
    for (const Stmt* child : s->children()) {
      walk(child);
    }
  }
  void follow(const FunctionDecl* fd) {
    const FunctionDecl* def = nullptr;
    if (fd == nullptr || !fd->hasBody(def) || def == nullptr || def->getBody() == nullptr ||
        sm_.isInSystemHeader(sm_.getExpansionLoc(def->getLocation())) ||
        !seen_.insert(def).second) {
      return;
    }
    // A template instance's body is the pattern's text: its range covers the conditionals.
    ranges_.push_back(def->getSourceRange());
    walk(def->getBody());
    if (const auto* ctor = dyn_cast<CXXConstructorDecl>(def)) {
      for (const CXXCtorInitializer* init : ctor->inits()) {
        walk(init->getInit());
      }
    }
  }

  const SourceManager& sm_;
  std::vector<SourceRange> ranges_;
  std::set<const FunctionDecl*> seen_;
};

} // namespace

void CompilerConditionalRecorder::note(SourceLocation if_loc, const std::string& condition) {
  if (sm_.isInSystemHeader(if_loc) || !names_the_compiler(condition)) {
    return;
  }
  std::string& kept = open_[if_loc];
  kept += (kept.empty() ? "" : " / ") + condition;
}

void CompilerConditionalRecorder::If(SourceLocation loc, SourceRange condition,
                                     ConditionValueKind) {
  note(loc, Lexer::getSourceText(CharSourceRange::getTokenRange(condition), sm_, lang_).str());
}

void CompilerConditionalRecorder::Elif(SourceLocation, SourceRange condition, ConditionValueKind,
                                       SourceLocation if_loc) {
  note(if_loc, Lexer::getSourceText(CharSourceRange::getTokenRange(condition), sm_, lang_).str());
}

void CompilerConditionalRecorder::Ifdef(SourceLocation loc, const Token& name,
                                        const MacroDefinition&) {
  if (const IdentifierInfo* id = name.getIdentifierInfo()) {
    note(loc, "defined(" + id->getName().str() + ")");
  }
}

void CompilerConditionalRecorder::Ifndef(SourceLocation loc, const Token& name,
                                         const MacroDefinition&) {
  if (const IdentifierInfo* id = name.getIdentifierInfo()) {
    note(loc, "!defined(" + id->getName().str() + ")");
  }
}

void CompilerConditionalRecorder::Endif(SourceLocation loc, SourceLocation if_loc) {
  const auto it = open_.find(if_loc);
  if (it == open_.end()) {
    return;
  }
  out_.push_back(CompilerConditional{SourceRange(if_loc, loc), it->second});
  open_.erase(it);
}

const CompilerConditional* compiler_conditional_in(const std::vector<CompilerConditional>& all,
                                                   const Stmt* body, const SourceManager& sm) {
  if (all.empty() || body == nullptr) {
    return nullptr;
  }
  for (const SourceRange& r : ReachableBodies(sm).from(body)) {
    const SourceRange range(sm.getExpansionLoc(r.getBegin()), sm.getExpansionLoc(r.getEnd()));
    for (const CompilerConditional& c : all) {
      if (overlaps(range, c.range, sm)) {
        return &c;
      }
    }
  }
  return nullptr;
}

} // namespace rotor::frontend
