#include "rotor/frontend/Frontend.h"

#include "CompilerConditionals.h"
#include "HeaderCache.h"
#include "LoopRewriter.h"
#include "Lowering.h"
#include "MainSession.h"
#include "OtherSources.h"
#include "PragmaHandler.h"
#include "RuntimeInclude.h"
#include "TemplateLoops.h"
#include "ThrowAnalysis.h"
#include "UserHeaders.h"

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Lex/Lexer.h>
#include <clang/Lex/Preprocessor.h>
#include <clang/Rewrite/Core/Rewriter.h>
#include <clang/Tooling/Tooling.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace rotor::frontend {

using namespace clang;

std::string format(const Diagnostic& d) {
  std::ostringstream os;
  const char* sev = d.severity == Severity::error     ? "error"
                    : d.severity == Severity::warning ? "warning"
                                                      : "note";
  if (!d.file.empty()) {
    os << d.file << ":" << d.line << ":" << d.col << ": ";
  }
  os << sev << ": " << d.message << "\n";
  if (!d.source_line.empty()) {
    os << d.source_line << "\n";
    std::string caret;
    for (int i = 1; i < d.col && i <= static_cast<int>(d.source_line.size()); ++i) {
      caret += d.source_line[static_cast<std::size_t>(i - 1)] == '\t' ? '\t' : ' ';
    }
    os << caret << "^\n";
  }
  return os.str();
}

namespace {

std::vector<std::string> parse_args(const Options& options);

/// Every statement of the main file that a pragma might precede, by the location of its
/// first token.
class LoopCollector : public RecursiveASTVisitor<LoopCollector> {
public:
  explicit LoopCollector(const SourceManager& sm) : sm_(sm) {}
  bool VisitCXXForRangeStmt(CXXForRangeStmt* s) {
    if (sm_.isWrittenInMainFile(s->getForLoc())) {
      fors[s->getForLoc().getRawEncoding()] = s;
    }
    return true;
  }
  bool VisitForStmt(ForStmt* s) {
    if (sm_.isWrittenInMainFile(s->getForLoc())) {
      fors[s->getForLoc().getRawEncoding()] = s;
    }
    return true;
  }
  std::map<unsigned, Stmt*> fors; ///< range-fors and plain fors

private:
  const SourceManager& sm_;
};

class Consumer : public ASTConsumer {
public:
  Consumer(std::vector<RotorPragma>& pragmas, FileResult& result, const Options& options,
           std::string name, const SourceManager& sm,
           const std::vector<CompilerConditional>& conditionals)
      : pragmas_(pragmas), result_(result), options_(options), name_(std::move(name)), sm_(sm),
        conditionals_(conditionals) {}

  bool shouldSkipFunctionBody(Decl* d) override {
    return sm_.isInSystemHeader(sm_.getExpansionLoc(d->getLocation()));
  }

  void HandleTranslationUnit(ASTContext& ctx) override {
    if (ctx.getDiagnostics().hasErrorOccurred()) {
      result_.ok = false;
      return;
    }
    result_.ok = true;
    const SourceManager& sm = ctx.getSourceManager();
    Rewriter rw(ctx.getSourceManager(), ctx.getLangOpts());
    const FileEntry* main_file = sm.getFileEntryForID(sm.getMainFileID());
    other_sources_ = std::make_unique<OtherSources>(
        ctx, main_file != nullptr ? main_file->getName().str() : name_, options_.program_sources,
        parse_args(options_));
    for (const RotorPragma& p : pragmas_) {
      if (const LoopSite loop = annotated_loop(ctx, p); loop.stmt != nullptr) {
        handle_loop(ctx, p, loop, rw);
      }
    }
    if (result_.ok && result_.changed) {
      insert_main_session(ctx, rw);           // a program without a rotor::Session gets one
      insert_runtime_include(ctx, rw, name_); // and one without rotor.h its include
      insert_program_mark(ctx, rw);           // non-root ranks quiet from the start
    }
    other_sources_.reset(); // frees the other files' ASTs before the ASTContext goes
    if (result_.ok && options_.rewrite) {
      if (const RewriteBuffer* buf = rw.getRewriteBufferFor(sm.getMainFileID())) {
        result_.rewritten = std::string(buf->begin(), buf->end());
      } else {
        result_.rewritten = sm.getBufferData(sm.getMainFileID()).str();
      }
    }
  }

private:
  /// The loop that pragma `p` of the main file annotates (a range-for, or an index loop over a
  /// std::vector); a site without `stmt` (with an error where the pragma is misplaced) otherwise.
  LoopSite annotated_loop(ASTContext& ctx, const RotorPragma& p) {
    const SourceManager& sm = ctx.getSourceManager();
    if (!sm.isWrittenInMainFile(sm.getExpansionLoc(p.hash))) {
      warn_pragma_in_header(sm, p);
      return {};
    }
    if (!p.error.empty()) {
      error(sm, p.error_loc.isValid() ? p.error_loc : p.hash, p.error);
      return {};
    }
    const Stmt* loop = following_loop(ctx, p);
    LoopSite site;
    std::string why;
    if (const auto* range_for = dyn_cast_or_null<CXXForRangeStmt>(loop)) {
      site = range_for_site(*range_for);
    } else if (const auto* index_for = dyn_cast_or_null<ForStmt>(loop)) {
      site = index_loop_site(*index_for, why);
      if (site.stmt == nullptr) {
        error(sm, p.hash,
              "'#pragma rotor parallel_for' index loop not accepted: " + why +
                  " (accepted: 'for (std::size_t i = 0; i < v.size(); ++i)' over a std::vector "
                  "of records, using 'v[i]' as the record)");
        return {};
      }
    } else {
      error(sm, p.hash,
            "'#pragma rotor parallel_for' must be followed by a for loop (for (const Record& r : "
            "dataset), for (auto [i, j] : index_space), or for (std::size_t i = 0; i < "
            "v.size(); ++i))");
      return {};
    }
    if (site.range->isTypeDependent() || site.var->getType()->isDependentType()) {
      error(sm, p.hash,
            "'#pragma rotor parallel_for' loop over a range whose type depends on a template "
            "parameter: Rotor analyses loops in templates per instantiation, but only where the "
            "range and the loop variable have one type in every instantiation");
      return {};
    }
    return site;
  }

  /// Lowers, plans and (unless explaining) rewrites one annotated loop; a loop in a template is
  /// analysed in the instantiations this file makes.
  void handle_loop(ASTContext& ctx, const RotorPragma& p, const LoopSite& loop, Rewriter& rw) {
    if (in_template_pattern(loop)) {
      handle_template_loop(ctx, p, loop, rw);
      return;
    }
    Analysed a = analyse(ctx, p, loop, result_.diagnostics);
    if (a.lowered.failed) {
      result_.ok = false;
      return;
    }
    finish_loop(ctx, p, loop, a, rw);
  }

  struct Analysed {
    LoweredLoop lowered;
    LoopResult result;
  };

  Analysed analyse(ASTContext& ctx, const RotorPragma& p, const LoopSite& loop,
                   std::vector<Diagnostic>& diags) {
    Analysed a;
    // Helpers defined in another source file: their bodies first (only where a loop reaches one).
    a.result.imported_bodies = other_sources_->import_reached(loop.stmt);
    a.lowered = lower_loop(ctx, loop, p, name_, diags, other_sources_.get());
    for (const LoweredLoop::ColumnCheck& c : a.lowered.column_checks) {
      a.result.checked_columns.push_back(c.note);
    }
    a.lowered.may_throw = may_throw(loop.body);
    a.lowered.gpu = a.lowered.gpu || options_.device_gpu;
    block_undoable_vector_writes(a.lowered);
    block_compiler_conditional(ctx.getSourceManager(), loop, a.lowered);
    a.result.model = a.lowered.model;
    a.result.plan = analysis::plan_loop(a.lowered.model);
    a.result.gpu = a.lowered.gpu;
    a.result.may_throw = a.lowered.may_throw;
    if (a.lowered.over_vector) {
      const std::string outer = a.lowered.model.fields.empty() ? "" : a.lowered.model.fields[0];
      a.result.container = !a.lowered.ragged_index.empty()
                               ? "ragged nest of pairs (" + outer + ", " + a.lowered.ragged_index +
                                     "), " + outer + " in [0, " + a.lowered.range + ") and " +
                                     a.lowered.ragged_index + " in [0, " + a.lowered.ragged_bound +
                                     ")"
                           : a.lowered.int_range ? "range of integers [0, " + a.lowered.range + ")"
                                                 : "std::vector<" + a.lowered.record_type + ">";
    }
    return a;
  }

  /// The remark for a serial plan, the rewrite, the result.
  void finish_loop(ASTContext& ctx, const RotorPragma& p, const LoopSite& loop, Analysed& a,
                   Rewriter& rw) {
    if (a.result.plan.kind == analysis::PlanKind::serial) {
      warn_serial(ctx.getSourceManager(), loop, a.result.plan);
    }
    if (options_.rewrite) {
      rewrite_loop(rw, loop, p, a.lowered, a.result.plan, name_);
      if (!runs_as_written(a.lowered, a.result.plan)) {
        rewrite_libc_calls(rw, a.lowered);
        rewrite_column_checks(rw, a.lowered);
      }
      result_.changed = true;
    }
    result_.loops.push_back(std::move(a.result));
  }

  /// Each instantiation of a loop in a template is analysed; the pattern is rewritten once when
  /// all of them get the same run_loop call, and is an error otherwise. A template this file
  /// never instantiates compiles to nothing here: its loop is left as written.
  void handle_template_loop(ASTContext& ctx, const RotorPragma& p, const LoopSite& pattern,
                            Rewriter& rw) {
    if (!instances_) {
      instances_ = instantiated_loops(ctx);
    }
    const auto found = instances_->find(pattern.for_loc.getRawEncoding());
    if (found == instances_->end()) {
      return;
    }
    std::vector<Diagnostic> first_diags;
    Analysed first = analyse(ctx, p, found->second.front(), first_diags);
    const std::string first_text = rewritten_text(ctx, p, found->second.front(), first);
    result_.diagnostics.insert(result_.diagnostics.end(), first_diags.begin(), first_diags.end());
    if (first.lowered.failed) {
      result_.ok = false;
      return;
    }
    for (std::size_t i = 1; i < found->second.size(); ++i) {
      std::vector<Diagnostic> diags;
      Analysed other = analyse(ctx, p, found->second[i], diags);
      if (other.lowered.failed || rewritten_text(ctx, p, found->second[i], other) != first_text) {
        error(ctx.getSourceManager(), p.hash,
              "'#pragma rotor parallel_for' loop in a template: its instantiations " +
                  instantiation_name(found->second.front()) + " (plan " +
                  analysis::to_string(first.result.plan.kind) + ") and " +
                  instantiation_name(found->second[i]) + " (plan " +
                  analysis::to_string(other.result.plan.kind) +
                  ") need different code, and rotor-cc rewrites the template once");
        return;
      }
    }
    finish_loop(ctx, p, found->second.front(), first, rw);
  }

  /// The main file as rewriting this one loop alone would leave it.
  std::string rewritten_text(ASTContext& ctx, const RotorPragma& p, const LoopSite& loop,
                             const Analysed& a) {
    Rewriter scratch(ctx.getSourceManager(), ctx.getLangOpts());
    rewrite_loop(scratch, loop, p, a.lowered, a.result.plan, name_);
    const RewriteBuffer* buf = scratch.getRewriteBufferFor(ctx.getSourceManager().getMainFileID());
    return buf == nullptr ? std::string() : std::string(buf->begin(), buf->end());
  }

  /// `random()` / `rand()` calls of a `private(random)` / `private(rand)` loop, in its body and
  /// in the helpers it calls, become calls of the runtime's worker_random / worker_rand (libc's
  /// generator outside such a loop; Private.h). A helper two loops call is rewritten once.
  void rewrite_libc_calls(Rewriter& rw, const LoweredLoop& lowered) {
    for (const LoweredLoop::LibcCall& c : lowered.libc_calls) {
      const unsigned at = rw.getSourceMgr().getFileOffset(c.callee.getBegin());
      if (rewritten_libc_calls_.insert(at).second) {
        rw.ReplaceText(CharSourceRange::getTokenRange(c.callee), c.replacement);
      }
    }
  }

  /// Unbounded columns of staged `T**` tables, in the body and in the helpers it calls, become
  /// codegen::checked_column calls (Lowering.h, ColumnCheck); each is rewritten once.
  void rewrite_column_checks(Rewriter& rw, const LoweredLoop& lowered) {
    const SourceManager& sm = rw.getSourceMgr();
    for (const LoweredLoop::ColumnCheck& c : lowered.column_checks) {
      if (!rewritten_columns_.insert(sm.getFileOffset(c.column.getBegin())).second) {
        continue;
      }
      rw.InsertTextBefore(c.column.getBegin(), column_check_prefix(c));
      rw.InsertTextAfterToken(c.column.getEnd(), column_check_suffix(c));
    }
  }

  /// A body that may throw and writes the elements of the std::vector it runs over: the runtime
  /// undoes a throwing step's writes to arrays and to a Dataset's records, not to the vector's
  /// elements (codegen-contract.md, "Exceptions"), so such a loop runs serially.
  static void block_undoable_vector_writes(LoweredLoop& lowered) {
    if (!lowered.over_vector || !lowered.writes_records || !lowered.may_throw) {
      return;
    }
    analysis::Escape e;
    e.kind = analysis::Escape::Kind::control_flow;
    e.what = "the body may throw and writes the elements of the std::vector it runs over (a "
             "throwing step's writes to them could not be undone)";
    e.loc = lowered.model.loc;
    lowered.model.escapes.push_back(std::move(e));
  }

  /// Code under a condition on the compiler in the body or its helpers blocks the loop
  /// (CompilerConditionals.h).
  void block_compiler_conditional(const SourceManager& sm, const LoopSite& loop,
                                  LoweredLoop& lowered) {
    if (std::getenv("ROTOR_CC_TEST_BLIND_TO_COMPILER_CONDITIONALS") != nullptr) {
      return; // tests only: they prove the sanitizers and the fuzzer catch what the analysis missed
    }
    const CompilerConditional* c = compiler_conditional_in(conditionals_, loop.body, sm);
    if (c == nullptr) {
      return;
    }
    analysis::Escape e;
    e.kind = analysis::Escape::Kind::compiler_dependent;
    e.what = "'#if " + c->condition +
             "': rotor-cc analyses the branch Clang takes, the host "
             "compiler may compile another";
    const SourceLocation at = sm.getExpansionLoc(c->range.getBegin());
    e.loc.file = sm.isWrittenInMainFile(at) ? name_ : sm.getFilename(at).str();
    e.loc.line = static_cast<int>(sm.getExpansionLineNumber(at));
    e.loc.col = static_cast<int>(sm.getExpansionColumnNumber(at));
    lowered.model.escapes.push_back(std::move(e));
  }

  /// "loop not parallelized: REASON" at the loop, and a note at the blocking access.
  void warn_serial(const SourceManager& sm, const LoopSite& loop, const analysis::Plan& plan) {
    result_.remarks.push_back(make_diagnostic(sm, loop.for_loc, Severity::warning,
                                              "loop not parallelized: " + plan.reason, name_));
    if (!plan.blocking || plan.blocking->line <= 0) {
      return;
    }
    const analysis::SourceLoc& b = *plan.blocking;
    Diagnostic note;
    if (b.file == name_) {
      note = make_diagnostic(sm,
                             sm.translateLineCol(sm.getMainFileID(), static_cast<unsigned>(b.line),
                                                 static_cast<unsigned>(std::max(1, b.col))),
                             Severity::note, "blocking access here", name_);
    } else {
      note.severity = Severity::note;
      note.file = b.file;
      note.line = b.line;
      note.col = b.col;
      note.message = "blocking access here";
    }
    result_.remarks.push_back(note);
  }

  /// rotor-cc rewrites the file it compiles, not the headers it includes: a pragma in a user's
  /// header would be ignored, so say so (in every report, and when compiling) instead of
  /// silently building the loop serially. System headers are not the user's.
  void warn_pragma_in_header(const SourceManager& sm, const RotorPragma& p) {
    const SourceLocation at = sm.getExpansionLoc(p.hash);
    if (sm.isInSystemHeader(at)) {
      return;
    }
    result_.diagnostics.push_back(make_diagnostic(
        sm, at, Severity::warning,
        "'#pragma rotor' in a header is ignored: rotor-cc rewrites loops only in the source file "
        "it compiles (" +
            name_ +
            "); move the loop into a function defined in a .cpp file, or compile the "
            "header's code as its own .cpp file",
        name_));
  }

  void error(const SourceManager& sm, SourceLocation loc, const std::string& message) {
    result_.diagnostics.push_back(make_diagnostic(sm, loc, Severity::error, message, name_));
    result_.ok = false;
  }

  const Stmt* following_loop(ASTContext& ctx, const RotorPragma& p) {
    const SourceManager& sm = ctx.getSourceManager();
    Optional<Token> next = Lexer::findNextToken(sm.getExpansionLoc(p.last), sm, ctx.getLangOpts());
    if (!next || !next->is(tok::raw_identifier) || next->getRawIdentifier() != "for") {
      return nullptr;
    }
    auto it = fors_cache(ctx).find(next->getLocation().getRawEncoding());
    return it == fors_cache(ctx).end() ? nullptr : it->second;
  }

  std::map<unsigned, Stmt*>& fors_cache(ASTContext& ctx) {
    if (!collected_) {
      LoopCollector collector(ctx.getSourceManager());
      collector.TraverseDecl(ctx.getTranslationUnitDecl());
      fors_ = std::move(collector.fors);
      collected_ = true;
    }
    return fors_;
  }

  std::vector<RotorPragma>& pragmas_;
  FileResult& result_;
  const Options& options_;
  std::string name_;
  const SourceManager& sm_;
  const std::vector<CompilerConditional>& conditionals_;
  bool collected_ = false;
  std::map<unsigned, Stmt*> fors_;
  std::optional<std::map<unsigned, std::vector<LoopSite>>> instances_;
  std::unique_ptr<OtherSources> other_sources_; ///< kept for the whole analysis (imported bodies)
  std::set<unsigned> rewritten_columns_;        ///< file offsets of rewritten checked columns
  std::set<unsigned> rewritten_libc_calls_;     ///< file offsets of rewritten random()/rand() calls
};

/// Collects Clang's error messages instead of printing them (the parse with a PCH: on any error
/// the file is parsed again without it, and that parse prints).
class CollectErrors : public DiagnosticConsumer {
public:
  explicit CollectErrors(std::vector<std::string>& errors) : errors_(errors) {}
  void HandleDiagnostic(DiagnosticsEngine::Level level, const clang::Diagnostic& info) override {
    DiagnosticConsumer::HandleDiagnostic(level, info);
    if (level >= DiagnosticsEngine::Error) {
      SmallString<128> text;
      info.FormatDiagnostic(text);
      errors_.push_back(text.str().str());
    }
  }

private:
  std::vector<std::string>& errors_;
};

class Action : public ASTFrontendAction {
public:
  Action(FileResult& result, const Options& options, std::string name,
         std::vector<std::string>* quiet_errors)
      : result_(result), options_(options), name_(std::move(name)), quiet_errors_(quiet_errors) {}
  bool BeginSourceFileAction(CompilerInstance& ci) override {
    if (quiet_errors_ != nullptr) {
      ci.getDiagnostics().setClient(new CollectErrors(*quiet_errors_), /*ShouldOwnClient=*/true);
      // Nor the "N errors generated." summary (CompilerInstance prints it when ShowCarets).
      ci.getDiagnosticOpts().ShowCarets = false;
    }
    ci.getPreprocessor().AddPragmaHandler(new RotorPragmaHandler(pragmas_));
    ci.getPreprocessor().addPPCallbacks(std::make_unique<CompilerConditionalRecorder>(
        ci.getSourceManager(), ci.getLangOpts(), conditionals_));
    // Bodies of functions in system headers (the standard library, Eigen, Rotor's own) are
    // never analysed: skipping them (Consumer::shouldSkipFunctionBody) halves the parse.
    ci.getFrontendOpts().SkipFunctionBodies = options_.skip_system_bodies;
    return true;
  }
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance& ci, StringRef) override {
    return std::make_unique<Consumer>(pragmas_, result_, options_, name_, ci.getSourceManager(),
                                      conditionals_);
  }

private:
  FileResult& result_;
  const Options& options_;
  std::string name_;
  std::vector<std::string>* quiet_errors_;
  std::vector<RotorPragma> pragmas_;
  std::vector<CompilerConditional> conditionals_;
};

std::vector<std::string> parse_args(const Options& options) {
  std::vector<std::string> args = {"-resource-dir=" ROTOR_CLANG_RESOURCE_DIR, "-w",
                                   "-Wno-everything"};
  bool has_std = false;
  for (const std::string& a : options.clang_args) {
    has_std = has_std || a.rfind("-std=", 0) == 0;
  }
  if (!has_std) {
    args.push_back("-std=c++17");
  }
  args.insert(args.end(), options.clang_args.begin(), options.clang_args.end());
  return args;
}

/// One Clang parse of `code`; with `quiet_errors`, Clang's errors are collected there, not printed.
FileResult parse_once(const std::string& code, const std::string& name, const Options& options,
                      const std::vector<std::string>& args,
                      std::vector<std::string>* quiet_errors) {
  FileResult result;
  const std::string display = options.display_name.empty() ? name : options.display_name;
  auto action = std::make_unique<Action>(result, options, display, quiet_errors);
  tooling::runToolOnCodeWithArgs(std::move(action), code, args, name, "rotor-cc");
  return result;
}

bool pch_applies(const std::string& code, const Options& options) {
  if (options.pch_cache_dir.empty() || !options.skip_system_bodies ||
      !starts_with_rotor_include(code)) {
    return false;
  }
  for (const std::string& a : options.clang_args) {
    // Files included before the main file would come after the PCH's prefix: not the same.
    if (a.rfind("-include", 0) == 0 || a.rfind("-imacros", 0) == 0) {
      return false;
    }
  }
  return true;
}

/// The parse with the precompiled rotor.h; false when it cannot be used (then parse without).
bool parse_with_pch(const std::string& code, const std::string& name, const Options& options,
                    FileResult& result) {
  const std::vector<std::string> args = parse_args(options);
  for (bool rebuild : {false, true}) {
    const std::string pch = rotor_header_pch(options.pch_cache_dir, args, rebuild);
    if (pch.empty()) {
      return false;
    }
    std::vector<std::string> with_pch = args;
    for (const std::string& a : use_pch_args(pch)) {
      with_pch.push_back(a);
    }
    std::vector<std::string> errors;
    result = parse_once(code, name, options, with_pch, &errors);
    if (errors.empty()) {
      return true;
    }
    // A stale or foreign PCH: build it again once. Any other error: the parse without the PCH
    // reports it the usual way.
    if (std::none_of(errors.begin(), errors.end(), is_pch_problem)) {
      return false;
    }
  }
  return false;
}

} // namespace

FileResult process_source(const std::string& code, const std::string& name,
                          const Options& options) {
  FileResult result;
  if (!pch_applies(code, options) || !parse_with_pch(code, name, options, result)) {
    result = parse_once(code, name, options, parse_args(options), nullptr);
  }
  if (!result.ok) {
    result.rewritten.clear();
    result.changed = false;
  }
  return result;
}

FileResult process_file(const std::string& path, const Options& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    FileResult result;
    Diagnostic d;
    d.file = path;
    d.line = 1; // the contract's `file:line:col: error:` form, as for any other input error
    d.col = 1;
    d.message = "cannot open '" + path + "': no such file or not readable";
    result.diagnostics.push_back(d);
    return result;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string code = ss.str();
  if (!mentions_rotor_pragma(code) &&
      !user_headers_mention_rotor_pragma(path, code, options.clang_args)) {
    // No `#pragma rotor` (or `_Pragma("rotor ...")`) in this file or its own headers: nothing to
    // analyse, rewrite or warn about (the host compiler reports any error in it), so skip the
    // Clang parse.
    FileResult result;
    result.ok = true;
    result.rewritten = code;
    return result;
  }
  return process_source(code, path, options);
}

} // namespace rotor::frontend
