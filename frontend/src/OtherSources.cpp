#include "OtherSources.h"

#include "RotorTypes.h"

#include <clang/AST/ASTImporter.h>
#include <clang/AST/ASTImporterSharedState.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Frontend/ASTUnit.h>
#include <clang/Index/USRGeneration.h>
#include <clang/Tooling/Tooling.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace rotor::frontend {

using namespace clang;
namespace fs = std::filesystem;

namespace {

/// The functions a statement names: direct calls, constructions, and the destructors of its
/// locals of class type.
class CalleeCollector : public RecursiveASTVisitor<CalleeCollector> {
public:
  bool shouldVisitImplicitCode() const { return true; }
  bool VisitCallExpr(CallExpr* c) {
    add(c->getDirectCallee());
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr* c) {
    add(c->getConstructor());
    return true;
  }
  bool VisitVarDecl(VarDecl* v) {
    const CXXRecordDecl* rd = v->getType()->getAsCXXRecordDecl();
    if (rd != nullptr && rd->hasDefinition() && !v->getType()->isReferenceType()) {
      add(rd->getDestructor());
    }
    return true;
  }
  std::vector<const FunctionDecl*> found;

private:
  void add(const FunctionDecl* fd) {
    if (fd != nullptr) {
      found.push_back(fd);
    }
  }
};

std::string usr_of(const Decl* d) {
  llvm::SmallString<128> buf;
  if (index::generateUSRForDecl(d, buf)) {
    return {};
  }
  return std::string(buf.str());
}

bool is_cpp_source_name(const std::string& name) {
  for (const char* ext : {".cpp", ".cc", ".cxx", ".C"}) {
    const std::string e = ext;
    if (name.size() > e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0) {
      return true;
    }
  }
  return false;
}

std::string dir_of(const std::string& path) {
  const std::string d = fs::path(path).parent_path().string();
  return d;
}

std::string join_path(const std::string& dir, const std::string& name) {
  return dir.empty() ? name : dir + "/" + name;
}

std::string canonical(const std::string& path) {
  std::error_code ec;
  const fs::path p = fs::weakly_canonical(path.empty() ? "." : path, ec);
  return ec ? path : p.string();
}

/// The name a definition's text must contain: the function's identifier, a constructor's or
/// destructor's class, or "operator".
std::string searched_name(const FunctionDecl* fd) {
  if (const auto* md = dyn_cast<CXXMethodDecl>(fd);
      md != nullptr && (isa<CXXConstructorDecl>(md) || isa<CXXDestructorDecl>(md))) {
    return md->getParent()->getNameAsString();
  }
  if (fd->getIdentifier() != nullptr) {
    return fd->getName().str();
  }
  return fd->isOverloadedOperator() ? "operator" : std::string();
}

std::string count_words(std::size_t n) {
  return n == 2 ? "two" : n == 3 ? "three" : std::to_string(n);
}

/// Why clang::ASTImporter refused, in words.
std::string import_failure(llvm::Error e) {
  std::string why = llvm::toString(std::move(e));
  if (why == "NameConflict") {
    return "a declaration it uses differs there from this file's (" + why + ")";
  }
  if (why == "UnsupportedConstruct") {
    return "it uses a construct Clang's importer does not support (" + why + ")";
  }
  return why;
}

/// The function definitions written in a file itself (not in the headers it includes), by USR.
class Definitions : public RecursiveASTVisitor<Definitions> {
public:
  explicit Definitions(const SourceManager& sm) : sm_(sm) {}
  bool VisitFunctionDecl(FunctionDecl* fd) {
    if (fd->doesThisDeclarationHaveABody() && !fd->isDependentContext() &&
        sm_.isWrittenInMainFile(sm_.getExpansionLoc(fd->getLocation()))) {
      if (std::string usr = usr_of(fd); !usr.empty()) {
        by_usr[usr].push_back(fd);
      }
    }
    return true;
  }
  std::map<std::string, std::vector<FunctionDecl*>> by_usr;

private:
  const SourceManager& sm_;
};

} // namespace

struct OtherSources::Impl {
  ASTContext& ctx;
  std::string main_path;
  std::vector<std::string> program_sources;
  std::vector<std::string> parse_args;
  std::shared_ptr<ASTImporterSharedState> shared;
  IgnoringDiagConsumer quiet; ///< the other files' diagnostics (a parse error denies instead)

  struct Unit {
    bool parses = false;
    /// The definitions written in the file, by USR: where each is ("matrix.cpp:32").
    std::map<std::string, std::vector<std::string>> definitions;
    std::unique_ptr<ASTUnit> ast;          ///< kept only for a file a body was imported from
    std::unique_ptr<ASTImporter> importer; ///< made on the first import from the file
  };
  std::map<std::string, Unit> units;                  ///< by path as found
  std::map<std::string, std::string> texts;           ///< file contents, by path
  std::map<std::string, std::string> failures;        ///< by callee USR: why no body was imported
  std::map<const FunctionDecl*, std::string> origins; ///< imported definition -> "file:line"

  Impl(ASTContext& c, std::string main, std::vector<std::string> sources,
       std::vector<std::string> args)
      : ctx(c), main_path(std::move(main)), program_sources(std::move(sources)),
        parse_args(std::move(args)) {}

  const std::string& text_of(const std::string& path) {
    auto it = texts.find(path);
    if (it == texts.end()) {
      std::ifstream in(path, std::ios::binary);
      std::ostringstream ss;
      ss << in.rdbuf();
      it = texts.emplace(path, ss.str()).first;
    }
    return it->second;
  }

  /// The C++ sources in `dir`, sorted by name.
  static std::vector<std::string> sources_in(const std::string& dir) {
    std::vector<std::string> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir.empty() ? "." : dir, ec), end; !ec && it != end;
         it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (it->is_regular_file(ec) && is_cpp_source_name(name)) {
        out.push_back(join_path(dir, name));
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  /// Where `fd`'s definition may be, in search order: the other sources on the command line,
  /// then the sources beside the compiled file, then those beside the header declaring `fd`.
  std::vector<std::string> candidates(const FunctionDecl* fd) {
    std::vector<std::string> ordered = program_sources;
    for (const std::string& s : sources_in(dir_of(main_path))) {
      ordered.push_back(s);
    }
    const SourceManager& sm = ctx.getSourceManager();
    const std::string header = sm.getFilename(sm.getExpansionLoc(fd->getLocation())).str();
    if (!header.empty()) {
      for (const std::string& s : sources_in(dir_of(header))) {
        ordered.push_back(s);
      }
    }
    std::set<std::string> seen = {canonical(main_path)};
    std::vector<std::string> out;
    for (const std::string& s : ordered) {
      if (seen.insert(canonical(s)).second) {
        out.push_back(s);
      }
    }
    return out;
  }

  /// `path` parsed with the compiled file's arguments; null when it has errors.
  std::unique_ptr<ASTUnit> parse(const std::string& path) {
    std::unique_ptr<ASTUnit> ast = tooling::buildASTFromCodeWithArgs(
        text_of(path), parse_args, path, "rotor-cc", std::make_shared<PCHContainerOperations>(),
        tooling::getClangStripDependencyFileAdjuster(), tooling::FileContentMappings(), &quiet);
    if (ast != nullptr && ast->getDiagnostics().hasErrorOccurred()) {
      ast.reset();
    }
    return ast;
  }

  /// The file parsed once per rotor-cc invocation, with the index of its definitions.
  Unit& unit_of(const std::string& path) {
    auto it = units.find(path);
    if (it != units.end()) {
      return it->second;
    }
    Unit u;
    u.ast = parse(path);
    u.parses = u.ast != nullptr;
    if (u.parses) {
      const SourceManager& usm = u.ast->getSourceManager();
      Definitions defs(usm);
      defs.TraverseDecl(u.ast->getASTContext().getTranslationUnitDecl());
      for (const auto& [usr, decls] : defs.by_usr) {
        for (const FunctionDecl* d : decls) {
          u.definitions[usr].push_back(
              path + ":" +
              std::to_string(usm.getPresumedLineNumber(usm.getExpansionLoc(d->getLocation()))));
        }
      }
    }
    return units.emplace(path, std::move(u)).first->second;
  }

  /// Frees the ASTs of the files no body was imported from (a directory of large sources would
  /// otherwise stay in memory for the whole analysis); a later import parses the file again.
  void release_unused() {
    for (auto& [path, u] : units) {
      if (u.importer == nullptr) {
        u.ast.reset();
      }
    }
  }

  struct Found {
    std::string path;
    std::string where; ///< "matrix.cpp:32"
  };

  /// The definition of `fd` in the other sources, imported; null with `failures[usr]` set when
  /// there is not exactly one, a candidate does not parse, or the import fails.
  const FunctionDecl* find_and_import(const FunctionDecl* fd) {
    const std::string usr = usr_of(fd);
    const std::string name = searched_name(fd);
    if (usr.empty() || name.empty() || failures.count(usr) != 0) {
      return nullptr;
    }
    std::vector<Found> found;
    std::vector<std::string> unparsed;
    for (const std::string& path : candidates(fd)) {
      if (text_of(path).find(name) == std::string::npos) {
        continue;
      }
      const Unit& u = unit_of(path);
      if (!u.parses) {
        unparsed.push_back(path);
        continue;
      }
      if (const auto d = u.definitions.find(usr); d != u.definitions.end()) {
        for (const std::string& where : d->second) {
          found.push_back({path, where});
        }
      }
    }
    const FunctionDecl* def = decide(fd, usr, found, unparsed);
    release_unused();
    return def;
  }

  /// Imports the one definition `usr` of `path` into the compiled file's context.
  llvm::Expected<Decl*> import(const std::string& path, const std::string& usr) {
    Unit& u = units.at(path);
    if (u.ast == nullptr) {
      u.ast = parse(path);
    }
    FunctionDecl* from = nullptr;
    if (u.ast != nullptr) {
      Definitions defs(u.ast->getSourceManager());
      defs.TraverseDecl(u.ast->getASTContext().getTranslationUnitDecl());
      const auto d = defs.by_usr.find(usr);
      from = d != defs.by_usr.end() && d->second.size() == 1 ? d->second.front() : nullptr;
    }
    if (from == nullptr) {
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "the file changed while rotor-cc read it");
    }
    if (u.importer == nullptr) {
      if (!shared) {
        shared = std::make_shared<ASTImporterSharedState>(*ctx.getTranslationUnitDecl());
      }
      u.importer = std::make_unique<ASTImporter>(ctx, ctx.getSourceManager().getFileManager(),
                                                 u.ast->getASTContext(), u.ast->getFileManager(),
                                                 /*MinimalImport=*/false, shared);
    }
    return u.importer->Import(from);
  }

  const FunctionDecl* decide(const FunctionDecl* fd, const std::string& usr,
                             const std::vector<Found>& found,
                             const std::vector<std::string>& unparsed) {
    if (!unparsed.empty()) {
      failures[usr] = unparsed.front() +
                      " mentions it but does not parse with this file's flags, so Rotor "
                      "cannot tell which definition the program links";
      return nullptr;
    }
    if (found.empty()) {
      failures[usr] = "no other source of the program defines it";
      return nullptr;
    }
    if (found.size() > 1) {
      std::string where;
      for (const Found& f : found) {
        where += (where.empty() ? "" : ", ") + f.where;
      }
      failures[usr] = count_words(found.size()) + " definitions: " + where;
      return nullptr;
    }
    llvm::Expected<Decl*> imported = import(found.front().path, usr);
    if (!imported) {
      failures[usr] = "importing its body from " + found.front().where +
                      " failed: " + import_failure(imported.takeError());
      return nullptr;
    }
    const FunctionDecl* def = nullptr;
    if (!fd->hasBody(def) || def == nullptr) {
      failures[usr] = "importing its body from " + found.front().where + " gave no body";
      return nullptr;
    }
    origins[def] = found.front().where;
    return def;
  }
};

OtherSources::OtherSources(ASTContext& ctx, std::string main_path,
                           std::vector<std::string> program_sources,
                           std::vector<std::string> parse_args)
    : impl_(std::make_unique<Impl>(ctx, std::move(main_path), std::move(program_sources),
                                   std::move(parse_args))) {}

OtherSources::~OtherSources() = default;

namespace {

/// Functions Rotor never looks for elsewhere: library code, Rotor's own, templates and their
/// instantiations, compiler-generated members.
bool searchable(const FunctionDecl* fd, const SourceManager& sm) {
  return !sm.isInSystemHeader(sm.getExpansionLoc(fd->getLocation())) && fd->getBuiltinID() == 0 &&
         !is_rotor_decl(fd) && !fd->isDependentContext() && !fd->isDefaulted() &&
         !fd->isDeleted() && fd->getTemplateInstantiationPattern() == nullptr &&
         fd->getTemplatedKind() == FunctionDecl::TK_NonTemplate;
}

} // namespace

std::vector<std::string> OtherSources::import_reached(const Stmt* body) {
  std::vector<std::string> notes;
  std::set<const FunctionDecl*> seen;
  std::vector<const Stmt*> work = {body};
  const SourceManager& sm = impl_->ctx.getSourceManager();
  while (!work.empty()) {
    const Stmt* s = work.back();
    work.pop_back();
    CalleeCollector callees;
    callees.TraverseStmt(const_cast<Stmt*>(s));
    for (const FunctionDecl* fd : callees.found) {
      if (!seen.insert(fd->getCanonicalDecl()).second || !searchable(fd, sm)) {
        continue;
      }
      const FunctionDecl* def = nullptr;
      if (!fd->hasBody(def) || def == nullptr) {
        def = impl_->find_and_import(fd);
      }
      if (def == nullptr || def->getBody() == nullptr) {
        continue;
      }
      if (const auto o = impl_->origins.find(def); o != impl_->origins.end()) {
        notes.push_back("body of '" + fd->getQualifiedNameAsString() + "' read from " + o->second);
      }
      work.push_back(def->getBody());
      if (const auto* cd = dyn_cast<CXXConstructorDecl>(def)) {
        for (const CXXCtorInitializer* init : cd->inits()) {
          if (init->getInit() != nullptr) {
            work.push_back(init->getInit()); // member and base initialisers run code too
          }
        }
      }
    }
  }
  return notes;
}

std::string OtherSources::why_not_imported(const FunctionDecl* fd) const {
  const auto it = impl_->failures.find(usr_of(fd));
  return it == impl_->failures.end() ? std::string() : it->second;
}

} // namespace rotor::frontend
