#include "RuntimeInclude.h"

#include <clang/Basic/SourceManager.h>
#include <llvm/ADT/StringRef.h>

namespace rotor::frontend {
namespace {

/// Whether any file the translation unit read is `.../rotor/rotor.h` (the umbrella header).
bool includes_rotor_header(const clang::SourceManager& sm) {
  for (auto it = sm.fileinfo_begin(); it != sm.fileinfo_end(); ++it) {
    const llvm::StringRef name = it->first->getName();
    if (name == "rotor/rotor.h" || name.endswith("/rotor/rotor.h")) {
      return true;
    }
  }
  return false;
}

/// `s` as a C string literal (the #line directive's file name).
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
    }
    out += c;
  }
  return out + "\"";
}

} // namespace

bool insert_runtime_include(clang::ASTContext& ctx, clang::Rewriter& rewriter,
                            const std::string& file_name) {
  const clang::SourceManager& sm = ctx.getSourceManager();
  if (includes_rotor_header(sm)) {
    return false;
  }
  const clang::SourceLocation start = sm.getLocForStartOfFile(sm.getMainFileID());
  rewriter.InsertTextBefore(start, "#include <rotor/rotor.h> // added by rotor-cc: the rewritten "
                                   "loops call the runtime\n#line 1 " +
                                       quoted(file_name) + "\n");
  return true;
}

void insert_program_mark(clang::ASTContext& ctx, clang::Rewriter& rewriter) {
  const clang::SourceManager& sm = ctx.getSourceManager();
  rewriter.InsertTextAfter(sm.getLocForEndOfFile(sm.getMainFileID()),
                           "\n// added by rotor-cc: the program was built by rotor-cc\n"
                           "extern \"C\" __attribute__((weak)) const int "
                           "rotor_cc_built_program = 1;\n");
}

} // namespace rotor::frontend
