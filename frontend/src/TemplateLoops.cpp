#include "TemplateLoops.h"

#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>
#include <llvm/Support/raw_ostream.h>

namespace rotor::frontend {

using namespace clang;

namespace {

const FunctionDecl* enclosing_function(const VarDecl* var) {
  for (const DeclContext* dc = var->getDeclContext(); dc != nullptr; dc = dc->getParent()) {
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
    add(range_for_site(*s));
    return true;
  }
  bool VisitForStmt(ForStmt* s) {
    std::string why;
    add(index_loop_site(*s, why));
    return true;
  }
  std::map<unsigned, std::vector<LoopSite>> loops;

private:
  void add(const LoopSite& site) {
    if (site.stmt == nullptr || site.var == nullptr || !sm_.isWrittenInMainFile(site.for_loc) ||
        in_template_pattern(site)) {
      return;
    }
    const FunctionDecl* fd = enclosing_function(site.var);
    if (fd != nullptr && fd->getTemplateInstantiationPattern() != nullptr) {
      loops[site.for_loc.getRawEncoding()].push_back(site);
    }
  }
  const SourceManager& sm_;
};

} // namespace

bool in_template_pattern(const LoopSite& loop) {
  return loop.var != nullptr && loop.var->getDeclContext()->isDependentContext();
}

std::map<unsigned, std::vector<LoopSite>> instantiated_loops(ASTContext& ctx) {
  InstanceCollector collector(ctx.getSourceManager());
  collector.TraverseDecl(ctx.getTranslationUnitDecl());
  return std::move(collector.loops);
}

std::string instantiation_name(const LoopSite& loop) {
  const FunctionDecl* fd = loop.var == nullptr ? nullptr : enclosing_function(loop.var);
  if (fd == nullptr) {
    return "?";
  }
  std::string name;
  llvm::raw_string_ostream os(name);
  fd->getNameForDiagnostic(os, fd->getASTContext().getPrintingPolicy(), /*Qualified=*/true);
  return os.str();
}

} // namespace rotor::frontend
