#pragma once
/// \file
/// Rewrites one annotated loop into a `rotor::codegen::run_loop` call
/// (docs/design/codegen-contract.md); the rest of the file is left as written.

#include "LoopSite.h"
#include "Lowering.h"
#include "PragmaHandler.h"
#include "rotor/analysis/Plan.h"

#include <clang/AST/StmtCXX.h>
#include <clang/Rewrite/Core/Rewriter.h>

#include <string>

namespace rotor::frontend {

/// `s` as a C++ string literal (quotes, backslashes and newlines escaped).
std::string quoted(const std::string& s);

/// What a checked column (Lowering.h, ColumnCheck) gets before and after its column's text:
/// `::rotor::codegen::checked_column(t, ` and `, "file:line: access")`. Inserted around the
/// column (not replacing it), so the column's own rewrites (a libc call in it) are kept. Inside
/// the loop's body lambda, `staged_view` (when not empty) names the table's staged view
/// (`rotor_view_nw`, a codegen::StagedPointerTable), which the check then reads its row length
/// from instead of looking the table up.
std::string column_check_prefix(const LoweredLoop::ColumnCheck& c,
                                const std::string& staged_view = "");
std::string column_check_suffix(const LoweredLoop::ColumnCheck& c);

/// The `::rotor::codegen::LoopSpec{...}` initializer for `plan` (one line per part).
std::string loop_spec_text(const LoweredLoop& loop, const analysis::Plan& plan,
                           const std::string& file_name, const std::string& indent);

/// True when the loop runs as written (a serial plan over a std::vector or an integer range: the
/// rewrite only starts the runtime before it, and the calls it reaches stay the original ones).
bool runs_as_written(const LoweredLoop& lowered, const analysis::Plan& plan);

/// Replaces `pragma` + `loop` in `rewriter` by the run_loop call (or, when it runs as written,
/// comments the pragma and starts the runtime before the loop).
void rewrite_loop(clang::Rewriter& rewriter, const LoopSite& loop, const RotorPragma& pragma,
                  const LoweredLoop& lowered, const analysis::Plan& plan,
                  const std::string& file_name);

} // namespace rotor::frontend
