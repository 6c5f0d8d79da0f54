#pragma once
/// \file
/// Lowering: one annotated range-for (Clang AST) -> analysis::LoopModel, plus what the rewriter
/// needs to emit the run_loop call (names to bind, the loop variable, control flow to rewrite).

#include "LoopSite.h"
#include "PragmaHandler.h"
#include "rotor/analysis/LoopModel.h"
#include "rotor/frontend/Frontend.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/StmtCXX.h>

#include <string>
#include <vector>

namespace rotor::frontend {

struct LoweredLoop {
  analysis::LoopModel model;
  bool gpu = false;
  /// rotor::Dataset<R> or std::vector<R>: the record type as it can be named at the loop;
  /// IndexSpace: empty.
  std::string record_type;
  int index_rank = 0; ///< IndexSpace<N>: N
  /// The loop is over a std::vector of plain records (record_type): run through the inspector,
  /// codegen::Inspection (docs/design/codegen-contract.md, "Loops over a std::vector").
  bool over_vector = false;
  std::string range; ///< over_vector: the range expression as written (`tokens`)
  /// An integer-range index loop (LoopSite::int_range; `range` is its bound n, over_vector is
  /// set): each key's value at iteration i as a C++ expression of the index (`i`,
  /// `user_of[i]`), in LoopModel::fields order; the inspector evaluates them before the loop.
  std::vector<std::string> key_reads;
  bool int_range = false;
  /// An index loop over a std::vector of records whose body uses the index other than as `v[i]`
  /// (`out[i] = ...`): the index is key `position_key` (its value at iteration i is i; the
  /// inspector reads it as codegen::RecordPosition); -1 otherwise.
  int position_key = -1;
  /// A ragged nest (LoopSite::inner): the inner index `n` and its count as a C++ expression of
  /// the outer index (`docs[d].size()`); key_reads are then expressions of both indices.
  std::string ragged_index;
  std::string ragged_bound;
  std::string ragged_bound_read; ///< how the inspector reads ragged_bound (noted, for a chain)
  /// A ragged nest whose bound or keys read a pointer chain (PointerChains.h): the inspector
  /// notes what it reads in a codegen::ChainReads `rotor_reads`; when run_loop finds that the
  /// loop writes any of it, the loop runs as written (`original_loop`, the source text).
  bool chain_reads = false;
  std::string original_loop;
  /// A ragged nest: for each key after the outer index, how the inspector reads its row pointer
  /// `C[d]->g` once a row (noted) when the key is the row element `C[d]->g[n]` of the bound's
  /// chain; empty for another key. All set: the inspector reads rows, not pairs
  /// (codegen::Inspection::ragged_rows).
  std::vector<std::string> key_rows;
  std::vector<std::string> bindings;            ///< `auto [i, j] : grid`: {"i", "j"}
  bool writes_records = false;                  ///< body writes fields of its (reference) record
  bool may_throw = true;                        ///< the body may throw (ThrowAnalysis.h)
  std::vector<std::string> reductions;          ///< names bound in the reductions tuple
  std::vector<clang::SourceLocation> continues; ///< `continue` of this loop (to `return`)
  std::vector<clang::SourceLocation> breaks;    ///< `break` of this loop
  std::vector<std::string> unused_in_body;      ///< bound names the body never names directly
  /// Arrays the body also uses other than by subscript, row or shape query (passed to a
  /// function, bound to a reference, another member call): they need a real DistArray, so they
  /// never get sparse worker buffers (codegen::SparseCapable).
  std::vector<std::string> used_whole;
  /// A plain container the loop writes (a std::vector or std::array as rows `v[key * stride +
  /// j]`, an Eigen::Matrix): the array `name` of the model, bound through the DistArray view
  /// `view` (`::rotor::codegen::adopt_rows(W, k)`; empty: none can be made) when the plan is
  /// exact (docs/design/containers.md).
  struct RowVector {
    std::string name;
    std::string view;
    /// A std::vector<std::vector<T>> staged for the loop (`view` is a codegen::StagedTable): the
    /// runtime gets `rotor_view_NAME.array()` and the body a local NAME over the staged rows.
    bool table = false;
    /// A staged `T**` table whose row pointers point at the staged rows for the loop
    /// (codegen::stage_object_table): the body keeps naming the table, no local is bound.
    bool swapped = false;
    /// Listed in buffered(...) (a std::vector, std::array or T* table): where the plan buffers it,
    /// the body's name stands for codegen::BufferedElements over the worker's buffer of the view
    /// and `size` (a C++ expression, read before the loop) is what its size() says.
    bool buffered = false;
    std::string size;
  };
  std::vector<RowVector> row_vectors;
  /// LoopModel::memory_checks as C++ expressions at the loop: {read, written} containers whose
  /// memory run_loop's spec compares (`::rotor::codegen::unless_shared`).
  std::vector<std::pair<std::string, std::string>> memory_checks;
  /// Namespace-scope declarations that name a protected or private table member of another
  /// object (`this->p->m` of a `class Matrix { protected: double** m; }`), inserted before the
  /// top-level declaration around the loop (`member_access_at`; LoweringObjectTables.cpp).
  std::string member_access;
  clang::SourceLocation member_access_at;
  /// Variables of which each worker gets its own copy (Privatisation.h): the body's name is
  /// bound to the copy; `reseed`: a `private(...)` variable (a generator gets its own seed).
  struct PrivateBinding {
    std::string name;
    bool reseed = false;
    /// A `private(p)` `T*` member (PrivateTables.cpp): each worker's copy holds this many
    /// elements (C++ text at the loop, e.g. `K`), copied from the program's array on first use;
    /// `expression` names the member at the loop. Empty for a variable.
    std::string length;
    std::string expression;
  };
  std::vector<PrivateBinding> privates;
  /// `private(random)` / `private(rand)`: libc's generators, per worker (rotor/runtime/Private.h);
  /// `libc_calls` are the callee expressions of their calls in the main file (the body and the
  /// helpers it calls), each rewritten to `replacement` (the runtime's worker_random/worker_rand).
  std::vector<std::string> libc_generators;
  struct LibcCall {
    clang::SourceRange callee;
    std::string replacement;
  };
  std::vector<LibcCall> libc_calls;
  /// Columns of `T**` tables no loop or constant bounds (`nw[w][topic]`), written in the main
  /// file: each becomes `codegen::checked_column(table, column, "where")`, which stops the
  /// program when the column falls outside the staged rows (docs/design/containers.md,
  /// "Checked columns"). `note`: what --explain says about it.
  struct ColumnCheck {
    clang::SourceRange column;
    std::string table;
    std::string where;
    std::string note;
    /// The index of a buffered `T*` used as one array (`p[topic]`): `checked_index`, against
    /// the worker buffer's size; else a staged table's column (`checked_column`).
    bool whole_array = false;
    std::string array; ///< the model array it indexes
  };
  std::vector<ColumnCheck> column_checks;
  /// Helpers the body calls that use a buffered container: cloned into the body lambda after
  /// the buffers' locals, under their own name (HelperClones.h, docs/design/helper-clones.md).
  std::vector<const clang::FunctionDecl*> clones;
  bool failed = false; ///< an error diagnostic was produced
};

/// Lowers `loop` (annotated by `pragma`). Errors and remarks are appended to `diags`.
class OtherSources;

/// `other`: where helpers' bodies were searched in the program's other sources (its reasons go
/// into the "not visible" blockers); may be null.
LoweredLoop lower_loop(clang::ASTContext& ctx, const LoopSite& loop, const RotorPragma& pragma,
                       const std::string& file_name, std::vector<Diagnostic>& diags,
                       const OtherSources* other = nullptr);

/// A Diagnostic at `loc` (the line of source filled in).
Diagnostic make_diagnostic(const clang::SourceManager& sm, clang::SourceLocation loc,
                           Severity severity, std::string message, const std::string& file_name);

} // namespace rotor::frontend
