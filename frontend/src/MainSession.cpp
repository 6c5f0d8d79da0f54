#include "MainSession.h"

#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>

namespace rotor::frontend {

using namespace clang;

namespace {

/// Finds the main file's `main` and whether the main file names the type rotor::Session (a
/// variable, `new`, a template argument such as make_unique<rotor::Session>). Qualifiers such as
/// `rotor::Session::instance()` do not count: they use a session someone else made.
class MainFinder : public RecursiveASTVisitor<MainFinder> {
public:
  explicit MainFinder(const SourceManager& sm) : sm_(sm) {}

  bool VisitFunctionDecl(FunctionDecl* f) {
    if (f->isMain() && f->doesThisDeclarationHaveABody() && in_main_file(f->getLocation())) {
      main = f;
    }
    return true;
  }
  bool VisitRecordTypeLoc(RecordTypeLoc tl) {
    const RecordDecl* r = tl.getDecl();
    if (r != nullptr && r->getName() == "Session" && in_main_file(tl.getBeginLoc())) {
      const auto* ns = dyn_cast<NamespaceDecl>(r->getDeclContext());
      names_session = names_session || (ns != nullptr && ns->getName() == "rotor");
    }
    return true;
  }
  bool TraverseNestedNameSpecifierLoc(NestedNameSpecifierLoc) { return true; }

  FunctionDecl* main = nullptr;
  bool names_session = false;

private:
  bool in_main_file(SourceLocation loc) const {
    return loc.isValid() && sm_.isWrittenInMainFile(sm_.getExpansionLoc(loc));
  }
  const SourceManager& sm_;
};

/// `(argc, argv)` when main takes them by those or other names as `int` and `char**`; empty
/// (settings from the environment only) otherwise.
std::string arguments(const FunctionDecl& main) {
  if (main.getNumParams() < 2) {
    return "";
  }
  const ParmVarDecl* argc = main.getParamDecl(0);
  const ParmVarDecl* argv = main.getParamDecl(1);
  const QualType argc_type = argc->getType();
  const QualType argv_type = argv->getType();
  const bool usable = !argc->getName().empty() && !argv->getName().empty() &&
                      !argc_type.isConstQualified() && argc_type->isIntegerType() &&
                      !argv_type.isConstQualified() && argv_type->isPointerType() &&
                      argv_type->getPointeeType()->isPointerType() &&
                      !argv_type->getPointeeType().isConstQualified();
  if (!usable) {
    return "";
  }
  return "(" + argc->getName().str() + ", " + argv->getName().str() + ")";
}

} // namespace

bool insert_main_session(ASTContext& ctx, Rewriter& rewriter) {
  const SourceManager& sm = ctx.getSourceManager();
  MainFinder finder(sm);
  finder.TraverseDecl(ctx.getTranslationUnitDecl());
  if (finder.main == nullptr || finder.names_session) {
    return false;
  }
  const auto* body = dyn_cast_or_null<CompoundStmt>(finder.main->getBody());
  if (body == nullptr || body->getLBracLoc().isMacroID()) {
    return false; // a function-try-block or a macro: leave main alone
  }
  // On the brace's line, so every later line keeps its number.
  rewriter.InsertTextAfterToken(body->getLBracLoc(),
                                " ::rotor::codegen::MainSession rotor_main_session" +
                                    arguments(*finder.main) + ";");
  return true;
}

} // namespace rotor::frontend
