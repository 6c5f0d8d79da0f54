#include "HeaderCache.h"

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/DeclBase.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/FileManager.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendActions.h>
#include <clang/Frontend/MultiplexConsumer.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/VirtualFileSystem.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>

namespace rotor::frontend {

using namespace clang;

namespace {

constexpr const char* k_pch_source = "#include <rotor/rotor.h>\n";

/// Function bodies in system headers are skipped, exactly as in the analysis parse
/// (Frontend.cpp's Consumer), so the PCH holds what that parse would have built.
class SkipSystemBodies : public ASTConsumer {
public:
  explicit SkipSystemBodies(const SourceManager& sm) : sm_(sm) {}
  bool shouldSkipFunctionBody(Decl* d) override {
    return sm_.isInSystemHeader(sm_.getExpansionLoc(d->getLocation()));
  }

private:
  const SourceManager& sm_;
};

class BuildPch : public GeneratePCHAction {
public:
  explicit BuildPch(std::string output) : output_(std::move(output)) {}

protected:
  bool BeginSourceFileAction(CompilerInstance& ci) override {
    ci.getFrontendOpts().OutputFile = output_;
    ci.getFrontendOpts().SkipFunctionBodies = true;
    return GeneratePCHAction::BeginSourceFileAction(ci);
  }
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance& ci, StringRef in) override {
    std::unique_ptr<ASTConsumer> pch = GeneratePCHAction::CreateASTConsumer(ci, in);
    if (!pch) {
      return nullptr;
    }
    std::vector<std::unique_ptr<ASTConsumer>> both;
    both.push_back(std::move(pch));
    both.push_back(std::make_unique<SkipSystemBodies>(ci.getSourceManager()));
    // MultiplexConsumer skips a body only when every consumer agrees.
    return std::make_unique<MultiplexConsumer>(std::move(both));
  }

private:
  std::string output_;
};

std::uint64_t fnv1a(const std::string& s, std::uint64_t h = 1469598103934665603ULL) {
  for (unsigned char c : s) {
    h = (h ^ c) * 1099511628211ULL;
  }
  return h;
}

bool make_dirs(const std::string& dir) {
  for (std::size_t at = 1; at <= dir.size(); ++at) {
    if (at == dir.size() || dir[at] == '/') {
      const std::string part = dir.substr(0, at);
      if (mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) {
        return false;
      }
    }
  }
  struct stat st {};
  return stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

/// Writes `text` to `path` through a private temporary and a rename (concurrent rotor-cc runs
/// never see half a file).
bool write_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) {
      std::remove(tmp.c_str());
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

/// Keeps the cache small: at most `keep` PCHs (one per argument set seen), the newest. A run
/// that loses its PCH to this in the meantime builds it again (is_pch_problem).
void prune(const std::string& cache_dir, std::size_t keep) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<std::pair<fs::file_time_type, fs::path>> pchs;
  for (const auto& e : fs::directory_iterator(cache_dir, ec)) {
    const fs::path& p = e.path();
    if (p.extension() == ".pch" && p.filename().string().rfind("rotor-", 0) == 0) {
      pchs.emplace_back(fs::last_write_time(p, ec), p);
    }
  }
  if (pchs.size() <= keep) {
    return;
  }
  std::sort(pchs.begin(), pchs.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t i = keep; i < pchs.size(); ++i) {
    fs::remove(pchs[i].second, ec);
    fs::path header = pchs[i].second;
    fs::remove(header.replace_extension(".hpp"), ec);
  }
}

/// Prints nothing; counts errors.
class QuietDiagnostics : public DiagnosticConsumer {
public:
  void HandleDiagnostic(DiagnosticsEngine::Level level, const clang::Diagnostic& info) override {
    DiagnosticConsumer::HandleDiagnostic(level, info);
  }
};

} // namespace

bool starts_with_rotor_include(const std::string& code) {
  std::size_t i = 0;
  const std::size_t n = code.size();
  while (i < n) {
    const char c = code[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      ++i;
    } else if (code.compare(i, 2, "//") == 0) {
      while (i < n && code[i] != '\n') {
        i += code[i] == '\\' && i + 1 < n ? 2 : 1; // a backslash continues the comment
      }
    } else if (code.compare(i, 2, "/*") == 0) {
      const std::size_t end = code.find("*/", i + 2);
      if (end == std::string::npos) {
        return false;
      }
      i = end + 2;
    } else {
      break;
    }
  }
  // Exactly `#include <rotor/rotor.h>` (blanks allowed where the preprocessor allows them) and
  // nothing else on the line.
  auto skip_blanks = [&] {
    while (i < n && (code[i] == ' ' || code[i] == '\t')) {
      ++i;
    }
  };
  if (i >= n || code[i] != '#') {
    return false;
  }
  ++i;
  skip_blanks();
  if (code.compare(i, 7, "include") != 0) {
    return false;
  }
  i += 7;
  skip_blanks();
  if (code.compare(i, 15, "<rotor/rotor.h>") != 0) {
    return false;
  }
  i += 15;
  skip_blanks();
  return i >= n || code[i] == '\n' || code[i] == '\r' || code.compare(i, 2, "//") == 0;
}

std::vector<std::string> use_pch_args(const std::string& pch) {
  return {"-include-pch", pch, "-fmodules-validate-system-headers"};
}

bool is_pch_problem(const std::string& message) {
  return message.find("precompiled header") != std::string::npos ||
         message.find("PCH") != std::string::npos || message.find("AST file") != std::string::npos;
}

std::string rotor_header_pch(const std::string& cache_dir,
                             const std::vector<std::string>& parse_args, bool rebuild) {
  if (cache_dir.empty() || !make_dirs(cache_dir)) {
    return "";
  }
  std::string key_text = k_pch_source;
  for (const std::string& a : parse_args) {
    key_text += '\0' + a;
  }
  char key[17];
  std::snprintf(key, sizeof key, "%016llx", static_cast<unsigned long long>(fnv1a(key_text)));
  const std::string base = cache_dir + "/rotor-" + key;
  const std::string header = base + ".hpp";
  const std::string pch = base + ".pch";
  if (exists(pch) && !rebuild) {
    return pch;
  }
  // The header is an input Clang validates by mtime: written once, never rewritten.
  if (!exists(header) && !write_atomically(header, k_pch_source)) {
    return "";
  }
  const std::string tmp = pch + ".tmp." + std::to_string(getpid());
  std::vector<std::string> argv = {"rotor-cc", "-fsyntax-only"};
  argv.insert(argv.end(), parse_args.begin(), parse_args.end());
  argv.push_back("-fmodules-validate-system-headers");
  argv.push_back(header);
  llvm::IntrusiveRefCntPtr<FileManager> files(
      new FileManager(FileSystemOptions(), llvm::vfs::getRealFileSystem()));
  tooling::ToolInvocation invocation(argv, std::make_unique<BuildPch>(tmp), files.get());
  QuietDiagnostics quiet;
  invocation.setDiagnosticConsumer(&quiet);
  const bool built = invocation.run() && quiet.getNumErrors() == 0 && exists(tmp);
  if (!built || std::rename(tmp.c_str(), pch.c_str()) != 0) {
    std::remove(tmp.c_str());
    return "";
  }
  prune(cache_dir, 8);
  return pch;
}

} // namespace rotor::frontend
