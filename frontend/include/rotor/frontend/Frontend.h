#pragma once
/// \file
/// The Rotor frontend: parses one C++ file with Clang 14, finds every
/// `#pragma rotor parallel_for` loop, lowers it to an analysis::LoopModel, plans it
/// (analysis::plan_loop) and rewrites it into a `rotor::codegen::run_loop` call
/// (docs/design/codegen-contract.md).
///
/// \code
///   rotor::frontend::Options opts;
///   opts.clang_args = {"-I/opt/rotor/include", "-std=c++17"};
///   rotor::frontend::FileResult r = rotor::frontend::process_file("sgd_mf.cpp", opts);
///   for (const auto& d : r.diagnostics) std::cerr << rotor::frontend::format(d);
///   if (r.ok) write(r.rewritten);   // the whole file, only the loops changed
/// \endcode

#include "rotor/analysis/LoopModel.h"
#include "rotor/analysis/Plan.h"

#include <string>
#include <vector>

namespace rotor::frontend {

enum class Severity { error, warning, note };

/// A user-facing message in the Clang style: `file:line:col: warning: ...`.
struct Diagnostic {
  Severity severity = Severity::error;
  std::string file;
  int line = 0;
  int col = 0;
  std::string message;
  std::string source_line; ///< the line of source it points at (may be empty)
};

/// `file:line:col: severity: message`, then the source line and a caret, newline-terminated.
std::string format(const Diagnostic& d);

/// One annotated loop, lowered and planned.
struct LoopResult {
  analysis::LoopModel model;
  analysis::Plan plan;
  bool gpu = false;
  bool may_throw = true; ///< the body may throw (src/ThrowAnalysis.h; codegen::LoopSpec::may_throw)
  /// A loop run through the inspector: the container it ranges over as `std::vector<Rating>`
  /// (--explain says it; JSON key "container"); empty for a Dataset or IndexSpace loop.
  std::string container;
  /// Bodies of helpers read from another source file of the program (src/OtherSources.h):
  /// "body of 'Matrix::get_value' read from matrix.cpp:32" (--explain notes; JSON key
  /// "bodies_read_elsewhere").
  std::vector<std::string> imported_bodies;
  /// Columns of pointer tables checked at run time (LoweredLoop::column_checks): "column of
  /// 'nw[w][topic]' (model.cpp:837) checked at run time against the row length K of 'nw': ..."
  /// (--explain notes; JSON key "columns_checked_at_run_time").
  std::vector<std::string> checked_columns;
};

struct Options {
  /// Extra arguments for the Clang parse: -I, -isystem, -D, -U, -std=..., -include.
  std::vector<std::string> clang_args;
  /// The file name written into `#line` directives, LoopSpec and diagnostics
  /// (default: the path as given).
  std::string display_name;
  /// Rewrite the source (false: analyse and plan only, as for --explain).
  bool rewrite = true;
  /// Skip the bodies of functions declared in system headers (never analysed; faster parse).
  bool skip_system_bodies = true;
  /// Where a precompiled `<rotor/rotor.h>` for the analysis parse may be kept (src/HeaderCache.h;
  /// used only for files that start with `#include <rotor/rotor.h>`). Empty: no PCH.
  std::string pch_cache_dir;
  /// `rotor-cc --device=gpu`: every annotated loop is a `device(gpu)` loop.
  bool device_gpu = false;
  /// The program's source files on the rotor-cc command line: searched first for the body of a
  /// helper the file declares but does not define (src/OtherSources.h).
  std::vector<std::string> program_sources;
};

struct FileResult {
  bool ok = false;                     ///< parsed, and every pragma was well placed
  std::vector<LoopResult> loops;       ///< in source order
  std::vector<Diagnostic> diagnostics; ///< rotor's own (Clang's are printed to stderr)
  /// `loop not parallelized: <reason>` warnings (+ a note at the blocking access) for serial
  /// plans; the driver prints them when it compiles.
  std::vector<Diagnostic> remarks;
  bool changed = false;  ///< at least one loop was rewritten
  std::string rewritten; ///< the whole rewritten file (when rewrite && ok)
};

/// Parses `path` with Clang and processes its annotated loops. Never throws for user errors.
FileResult process_file(const std::string& path, const Options& options);

/// The same on in-memory source (tests); `name` is the file name used in messages.
FileResult process_source(const std::string& code, const std::string& name, const Options& options);

} // namespace rotor::frontend
