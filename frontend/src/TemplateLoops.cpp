#include "TemplateLoops.h"

#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>
#include <llvm/Support/raw_ostream.h>

namespace rotor::frontend {

using namespace clang;

namespace {

const FunctionDecl* enclosing_function(const CXXForRangeStmt& loop) {
  for (const DeclContext* dc = loop.getLoopVariable()->getDeclContext(); dc != nullptr;
       dc = dc->getParent()) {
    if (const auto* fd = dyn_cast<FunctionDecl>(dc)) {
      return fd;
    }
  }
  return nullptr;
}

/// Visits instantiated bodies too (the default visitor sees patterns only).
class InstanceCollector : public RecursiveASTVisitor<InstanceCollector> {
public:
  explicit InstanceCollector(const SourceManager& sm) : sm_(sm) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool VisitCXXForRangeStmt(CXXForRangeStmt* s) {
    if (sm_.isWrittenInMainFile(s->getForLoc()) && !in_template_pattern(*s)) {
      const FunctionDecl* fd = enclosing_function(*s);
      if (fd != nullptr && fd->getTemplateInstantiationPattern() != nullptr) {
        loops[s->getForLoc().getRawEncoding()].push_back(s);
      }
    }
    return true;
  }
  std::map<unsigned, std::vector<CXXForRangeStmt*>> loops;

private:
  const SourceManager& sm_;
};

} // namespace

bool in_template_pattern(const CXXForRangeStmt& loop) {
  return loop.getLoopVariable()->getDeclContext()->isDependentContext();
}

std::map<unsigned, std::vector<CXXForRangeStmt*>> instantiated_loops(ASTContext& ctx) {
  InstanceCollector collector(ctx.getSourceManager());
  collector.TraverseDecl(ctx.getTranslationUnitDecl());
  return std::move(collector.loops);
}

std::string instantiation_name(const CXXForRangeStmt& loop) {
  const FunctionDecl* fd = enclosing_function(loop);
  if (fd == nullptr) {
    return "?";
  }
  std::string name;
  llvm::raw_string_ostream os(name);
  fd->getNameForDiagnostic(os, fd->getASTContext().getPrintingPolicy(), /*Qualified=*/true);
  return os.str();
}

} // namespace rotor::frontend
