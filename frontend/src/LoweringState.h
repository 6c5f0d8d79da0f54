#pragma once
/// \file
/// The lowering's internal state, shared by Lowering.cpp (uses, targets, subscripts, the walk)
/// and LoweringEffects.cpp (deny by default: the root of every write, the policy for calls).
/// Not installed; only frontend/src includes it.

#include "Lowering.h"

#include <clang/AST/DeclCXX.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/ParentMap.h>
#include <clang/Lex/Lexer.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace rotor::frontend::lowering {

using namespace clang;
using analysis::Offset;
using analysis::Subscript;

/// The most key fields a loop over a std::vector may have (codegen::k_max_inspected_keys).
inline constexpr std::size_t k_max_inspected_keys = 6;

/// The symbolic value of an integer expression used as a subscript.
struct Sym {
  Subscript::Kind kind = Subscript::Kind::unknown;
  int field = -1;
  Offset offset;
  static Sym number(std::int64_t v) {
    Sym s;
    s.kind = Subscript::Kind::constant;
    s.offset.value = v;
    return s;
  }
  static Sym symbol(std::string name) {
    Sym s;
    s.kind = Subscript::Kind::constant;
    s.offset.symbol = std::move(name);
    return s;
  }
  static Sym key(int field) {
    Sym s;
    s.kind = Subscript::Kind::key;
    s.field = field;
    return s;
  }
  static Sym whole() {
    Sym s;
    s.kind = Subscript::Kind::whole;
    return s;
  }
  static Sym unknown() { return Sym{}; }
};

/// Adds (sign = +1) or subtracts (sign = -1) two loop-invariant offsets; false if the result
/// is not a number plus at most one symbol.
bool add_offsets(const Offset& a, const Offset& b, int sign, Offset& out);

/// How an expression is used by its context.
enum class Use {
  read,
  write,      ///< assigned, incremented, bound to a non-const reference, non-const method, unsure
  plus_minus, ///< the direct left side of `+=` / `-=`
  alias_init, ///< initializes a local variable by value (`auto w = W.row(u)`)
  address,    ///< a pointer into it is taken (`&x`, `.data()`)
};

struct UseInfo {
  Use use = Use::read;
  const VarDecl* var = nullptr; ///< alias_init: the variable
};

/// Where `classify` is on its walk up from a use to the node that decides how it is used.
struct UseWalk {
  const Stmt* cur = nullptr;
  const ParentMap* parents = nullptr; ///< the walked function's
  bool direct = true;                 ///< no field, dereference or returned reference in between
  bool through_conditional = false;   ///< through a branch of `?:`
  /// Goes on from `p` (indirect: through a field, a dereference or a returned reference).
  std::optional<UseInfo> go_to(const Stmt* p, bool indirect = false) {
    cur = p;
    direct = direct && !indirect;
    return std::nullopt;
  }
};

/// What an expression ultimately names.
struct Target {
  /// none: not memory (a value, a function); unknown_k: memory Rotor cannot tell (a pointer
  /// from outside, a pointer member, a reference a call returned): a write to it blocks.
  enum Kind {
    none,
    array_k,
    row_k,
    record_k,
    point_k,
    outer_k,
    local_k,
    binding_k,
    unknown_k
  } kind = none;
  std::string array;                 ///< array: its name
  int rank = 1;                      ///< array: its rank
  std::string element;               ///< array: element type
  int access = -1;                   ///< row: the access the alias came from
  const ValueDecl* decl = nullptr;   ///< outer / local / binding
  int field = -1;                    ///< binding: its index
  const FieldDecl* member = nullptr; ///< record: the field written, when known
  bool via_pointer = false;          ///< reached through a dereference, `->` or a reference
  bool from_outside = false;         ///< unknown: the pointer itself comes from outside the loop
  std::string name;                  ///< outer / unknown: what to call it in a message
  /// array: a std::vector used as rows `v[key * stride + j]` (docs/design/containers.md)
  bool row_vector = false;
  std::string expression; ///< row vector: how to name it at the loop
  std::string container;  ///< row vector: "std::vector", "std::array" or "Eigen::Matrix"
  char eigen = 0;         ///< Eigen::Matrix: 'R' row-major, 'C' column-major, 'V' vector
  bool table = false;     ///< a std::vector<std::vector<T>>: rows `t[row][k]`, staged per loop
  int pointer = 0;        ///< a raw pointer table: 1 `T* p` (rows `p[row * stride + j]`), 2 `T** t`
  /// A pointer table member of another object (`this->p->m`, `P.m`; LoweringObjectTables.cpp).
  bool in_object = false;
};

/// An object the loop reaches (LoweringObjectTables.cpp): how to name a member of it in
/// messages and plans (`this->p->`, `p->`, `P.`) and how to reach it at the loop.
struct ObjectPath {
  std::string name;
  std::string expression;
};

class LoopLowering;

/// One activation: the loop body (depth 0) or a called function analysed with its arguments.
struct Frame {
  const FunctionDecl* fn = nullptr;
  std::unique_ptr<ParentMap> parents;
  std::map<const ValueDecl*, Target> env; ///< locals and parameters with a known meaning
  std::map<const ValueDecl*, Sym> ints;   ///< integer locals / parameters with a known value
  std::map<const ParmVarDecl*, std::pair<const Expr*, Frame*>> args; ///< by-reference arguments
  std::map<const ValueDecl*, Target> pointees; ///< local pointers / references: what they reach
  const Expr* this_object = nullptr;
  Frame* caller = nullptr;
  const Expr* call = nullptr;                       ///< the call (in `caller`) this frame analyses
  std::map<const ParmVarDecl*, const Expr*> values; ///< integer parameters: their arguments
};

bool is_modifying_operator(OverloadedOperatorKind op);

/// The model's subscript for a symbolic value (`text`: the subscript as written).
Subscript to_subscript(const Sym& s, std::string text);

bool is_nonconst_ref(QualType t);

/// `e` without parentheses and implicit conversions that keep every value (LoweringContainers.cpp).
const Expr* strip_value_preserving(const Expr* e, const ASTContext& ctx);

/// True when `a <= b` for every value of their symbol: two numbers, or the same symbol plus
/// numbers (`K - 1 <= K`).
bool offset_at_most(const Offset& a, const Offset& b);

/// The declaration a container expression `A` names (a variable, or a member of `this`), or
/// nullptr.
const ValueDecl* named_container(const Expr* base);

class LoopLowering {
public:
  LoopLowering(ASTContext& ctx, const LoopSite& loop, const RotorPragma& pragma,
               const std::string& file, std::vector<Diagnostic>& diags,
               const OtherSources* other = nullptr)
      : ctx_(ctx), sm_(ctx.getSourceManager()), loop_(loop), pragma_(pragma), file_(file),
        diags_(diags), other_sources_(other) {}

  LoweredLoop run();

private:
  bool choose_space(QualType range_type);
  bool choose_index_loop_space(QualType range_type);
  Target record_target() const;
  void bind_structured(Frame& body);
  void choose_key_fields(const RecordDecl* record);
  void choose_position_key();
  bool names_index_beyond_record(const Stmt* s) const;
  void settle_reductions();
  void note_unnamed_arrays();
  void settle_buffered();
  void block_unevaluated_arrays();

  // ---- helpers --------------------------------------------------------------------------
  analysis::SourceLoc loc_of(SourceLocation l) const {
    analysis::SourceLoc out;
    l = sm_.getExpansionLoc(l);
    out.file = sm_.isWrittenInMainFile(l) ? file_ : sm_.getFilename(l).str();
    out.line = static_cast<int>(sm_.getExpansionLineNumber(l));
    out.col = static_cast<int>(sm_.getExpansionColumnNumber(l));
    return out;
  }
  std::string text_of(const Stmt* s) const {
    return Lexer::getSourceText(CharSourceRange::getTokenRange(s->getSourceRange()), sm_,
                                ctx_.getLangOpts())
        .str();
  }
  void error(SourceLocation loc, std::string msg) {
    diags_.push_back(make_diagnostic(sm_, loc, Severity::error, std::move(msg), file_));
    out_.failed = true;
  }
  bool inside_loop(SourceLocation l) const {
    l = sm_.getExpansionLoc(l);
    SourceRange r = loop_.stmt->getSourceRange();
    return !sm_.isBeforeInTranslationUnit(l, sm_.getExpansionLoc(r.getBegin())) &&
           !sm_.isBeforeInTranslationUnit(sm_.getExpansionLoc(r.getEnd()), l);
  }
  void escape(analysis::Escape::Kind kind, std::string what, SourceLocation loc,
              std::string fix = {}, bool replannable = false) {
    for (const auto& e : out_.model.escapes) {
      if (e.kind == kind && e.what == what) {
        return;
      }
    }
    out_.model.escapes.push_back({kind, std::move(what), loc_of(loc), std::move(fix), replannable});
  }

  // ---- how a use is used (LoweringUses.cpp) -----------------------------------------------
  UseInfo classify(const Expr* e, Frame& f) const;
  std::optional<UseInfo> classify_step(const Stmt* p, UseWalk& w, Frame& f) const;
  std::optional<UseInfo> classify_conversion(const Stmt* p, UseWalk& w) const;
  std::optional<UseInfo> classify_member(const MemberExpr* me, UseWalk& w, Frame& f) const;
  std::optional<UseInfo> classify_method(const CXXMethodDecl* md, const Expr* call,
                                         UseWalk& w) const;
  std::optional<UseInfo> classify_operator_call(const CXXOperatorCallExpr* op, UseWalk& w) const;
  std::optional<UseInfo> classify_operator(const Stmt* p, UseWalk& w) const;
  UseInfo classify_declaration(const DeclStmt* ds, const UseWalk& w, Frame& f) const;
  UseInfo classify_range_for(const CXXForRangeStmt* loop, Frame& f) const;
  bool reference_only_read(const VarDecl* vd, const DeclStmt* ds, Frame& f) const;
  UseInfo classify_return(const Stmt* ret, Frame& f) const;

  Target target_of(const Expr* e, Frame& f);
  Target target_of_this(Frame& f);
  Target target_of_member(const MemberExpr* me, Frame& f);
  Target target_of_variable(const VarDecl* vd, const DeclRefExpr* dre, Frame& f);
  Sym eval(const Expr* e, Frame& f);
  Sym eval_variable(const DeclRefExpr* dre, Frame& f);
  Sym eval_member(const MemberExpr* me, Frame& f);
  Sym eval_point_coordinate(const CXXOperatorCallExpr* op, Frame& f);
  Sym eval_binary(const BinaryOperator* bo, Frame& f);
  void prescan(const Stmt* s, Frame& f);
  void bind_record_references(const DeclStmt* ds, Frame& f);
  void walk(const Stmt* s, Frame& f);
  void on_declref(const DeclRefExpr* dre, Frame& f);
  void note_outer_reference(const DeclRefExpr* dre, Frame& f);
  void note_record_alias(const DeclRefExpr* dre, Frame& f);
  void settle_outer_references();
  void on_this(const CXXThisExpr* te, Frame& f);
  bool calls_analysed_method(const CXXThisExpr* te, Frame& f) const;
  void on_outer_use(const DeclRefExpr* dre, const Target& t, Frame& f);
  void on_array_use(const Expr* use, const Target& t, Frame& f);
  bool name_row_access(const MemberExpr* me, const CXXMemberCallExpr* call, Frame& f,
                       std::vector<Subscript>& subs);
  bool on_array_method(const MemberExpr* me, const CXXMemberCallExpr* call, const Target& t);
  void on_whole_array_use(const Expr* use, const Stmt* p, const Target& t, Frame& f);
  void record_array_access(const Expr* access, std::vector<Subscript> subs, const Target& t,
                           Frame& f);
  void on_call(const CallExpr* call, Frame& f);
  void on_decl(const VarDecl* vd, Frame& f);
  int add_access(const Target& t, bool write, std::vector<Subscript> subs, const Expr* at);
  void note_array(const Target& t);
  bool analysable_callee(const FunctionDecl* fd) const;
  void control_flow(const Stmt* s, int loops, int switches, int lambdas);
  std::string symbol_name(const ValueDecl* d);
  /// How the code at the loop names `d` (LoopSiteNames.h; cached): empty when it cannot.
  const std::string& name_at_loop(const ValueDecl* d) const;
  bool preserves_value(QualType from, QualType to) const;
  void check_pointer_read(const Expr* pointer, const Stmt* at, Frame& f);
  void check_static(const VarDecl* vd, Frame& f);
  void on_dataset_use(const DeclRefExpr* dre, Frame& f);
  bool may_resize(const Expr* use, const Stmt* parent, Frame& f) const;
  void on_range_member_use(const MemberExpr* me, Frame& f); // LoweringLoopShapes.cpp
  void add_key_paths(const RecordDecl* record, std::vector<const FieldDecl*>& prefix);
  int key_of_member(const MemberExpr* me, Frame& f);
  bool is_key_head(const FieldDecl* fd) const;
  bool choose_range_space();
  const FieldDecl* range_bound_member(const Expr* bound) const;
  void choose_range_keys();
  int derived_key(const Expr* e) const;
  const ValueDecl* derived_key_array(const Expr* e) const;
  void check_derived_keys();
  void add_ragged_key(const Expr* e); // LoweringRagged.cpp
  const FieldDecl* chain_key(const Expr* e) const;
  const FieldDecl* chain_key_in(const Expr* e, const Frame& f) const;
  int chain_key_index(const Expr* e, const Frame& f) const;
  bool names_loop_index(const Expr* e, const VarDecl* v, const Frame& f) const;
  bool is_bound_chain(const Expr* chain, const Frame& f) const;
  bool is_chain_read(const Expr* e, Frame& f) const;
  void add_helper_chain_keys(); // LoweringRagged.cpp
  void choose_ragged_space();
  void check_inner_index_use(const DeclRefExpr* dre, Frame& f);
  void check_ragged_bound();
  void check_chain_root();
  void note_member_record_alias(const MemberExpr* me);
  void analyse_callee(Frame& callee, SourceLocation at);
  void on_destroy(const VarDecl* vd, Frame& f);
  std::string outside_write_fix(const VarDecl* vd) const;
  static const CXXMethodDecl* method_of(const DeclContext* dc);
  void block_unsafe_leftovers();
  void on_construct(const CXXConstructExpr* ctor, Frame& f);
  void bind_arguments(Frame& callee, const FunctionDecl* def, const Expr* const* args,
                      unsigned count, Frame& f);

  // ---- plain containers as parameter arrays (LoweringContainers.cpp) ------------------------
  Target row_vector_variable(const VarDecl* vd) const;
  Target container_target(QualType type) const;
  void on_eigen_use(const Expr* use, const Stmt* parent, const Target& t, Frame& f);
  Target row_vector_member(const MemberExpr* me, const FieldDecl* fd, Frame& f) const;
  bool names_loop_object(const Expr* base, const Frame& f) const;
  void on_row_vector_use(const Expr* use, const Stmt* parent, const Target& t, Frame& f);
  void on_table_use(const Expr* use, const Stmt* parent, const Target& t, Frame& f);
  bool on_table_row(const CXXOperatorCallExpr* row, const Target& t, Frame& f);
  std::vector<Subscript> row_vector_subscripts(const Expr* index, const Target& t, Frame& f);
  bool split_row_index(const Expr* index, Frame& f, Sym& row, Offset& stride);
  bool whole_row_index(const Expr* index, Frame& f, Sym& row, Offset& stride);
  bool column_in_row(const Expr* column, const Offset& stride, Frame& f);
  /// A loop counter's range (counter_range): inside [0, bound), all of it when `whole`.
  struct CounterRange {
    Offset bound;
    bool whole = false;
    const ForStmt* loop = nullptr; ///< the counter's `for`
  };
  std::optional<CounterRange> counter_range(const Expr* column, Frame& f);
  void misused_container(const Target& t, const std::string& how, SourceLocation at);
  void settle_containers();
  // ---- buffered(...) plain containers (LoweringBuffered.cpp) ---------------------------------
  struct Refusal {
    std::string why;
    SourceLocation at;
    std::string fix;
  };
  void note_container_naming(const Expr* use, const Target& t, const Frame& f);
  std::optional<std::string> clone_refusal(const Expr* bare_use, const Target& t,
                                           const Frame& f) const;
  std::set<std::string> names_bound_at_loop() const;
  void settle_helper_clones();
  std::optional<Refusal> why_not_buffered(const std::string& name) const;
  void buffered_container(const std::string& name, const std::string& expression,
                          LoweredLoop::RowVector& rv);
  std::string unbuffered_name_message(const std::string& name) const;
  // ---- raw pointer tables T* / T** (LoweringPointerTables.cpp) ------------------------------
  void on_pointer_use(const Expr* use, const Stmt* parent, const Target& t, Frame& f);
  bool flat_pointer_access(const Target& t, const ArraySubscriptExpr* access, Frame& f);
  bool pointer_column(const Expr* column, Frame& f, Offset& length, const ForStmt*& loop);
  bool reached_every_iteration(const Expr* access, Frame& f, const ForStmt* column_loop) const;
  // ---- pointer tables of other objects (LoweringObjectTables.cpp) ----------------------------
  bool object_path(const Expr* object, Frame& f, ObjectPath& out) const;
  bool visible_at_loop(const VarDecl* vd) const;
  Target object_table_member(const MemberExpr* me, const FieldDecl* fd, Frame& f);
  std::string member_access_expression(const ObjectPath& base, const FieldDecl* fd,
                                       const std::string& element, int depth);
  bool calls_method_of_object(const Expr* pointer, const Stmt* at, Frame& f) const;
  bool calls_object_method(const Expr* use, Frame& f) const;
  void check_reference_member_read(const MemberExpr* me, Frame& f);
  bool reached_in_callee(const Expr* access, const Frame& f, const ForStmt* column_loop) const;
  void note_pointer_row(const Target& t, const Sym& row, const std::string& text,
                        const Offset& reach, const ForStmt* column_loop, const Expr* access,
                        Frame& f);
  std::string pointer_table_view(const std::string& name, const std::string& expression);
  void block_pointer_read(const std::string& name);
  void block_read_alias(const std::string& read, const std::set<std::string>& written);

  // ---- per-worker copies (Privatisation.cpp) ------------------------------------------------
  void find_privates();
  bool is_private_here(const ValueDecl* d, SourceLocation use) const;
  bool on_libc_generator_call(const CallExpr* call, const FunctionDecl* fd);
  void on_scalar_definition(const BinaryOperator* bo, Frame& f);
  static bool has_seed_member(QualType t);

  // ---- deny by default (LoweringEffects.cpp) ----------------------------------------------
  Target root_of(const Expr* e, Frame& f);
  Target pointee_of(const Expr* e, Frame& f);
  Target either_root(const Target& a, const Target& b, const Expr* e) const;
  Target variable_root(const DeclRefExpr* dre, Frame& f);
  Target member_root(const MemberExpr* me, Frame& f);
  Target call_result_root(const CallExpr* call, Frame& f);
  void check_write(const Expr* written, const Stmt* at, Frame& f);
  void check_write_site(const Stmt* s, Frame& f);
  void note_binding(const VarDecl* vd, Frame& f);
  /// False when the call blocks (an escape was recorded); true when it is accounted for, either
  /// analysed below (`analyse` set) or known (its effects are its arguments' and object's).
  bool check_call(const CallExpr* call, const FunctionDecl* fd, Frame& f, bool& analyse);
  void check_call_arguments(const CallExpr* call, const FunctionDecl* fd, Frame& f);
  bool blocks_rotor_call(const CallExpr* call, const FunctionDecl* fd, Frame& f);
  std::string describe(const Target& t) const;

  ASTContext& ctx_;
  const SourceManager& sm_;
  const LoopSite& loop_;
  const RotorPragma& pragma_;
  std::string file_;
  std::vector<Diagnostic>& diags_;
  const OtherSources* other_sources_ = nullptr;
  /// "', whose body is not visible here" and why the search in the other sources failed.
  std::string not_visible(const FunctionDecl* fd) const;
  LoweredLoop out_;

  const VarDecl* loop_var_ = nullptr;
  const ValueDecl* range_decl_ = nullptr;
  const FieldDecl* range_field_ = nullptr; ///< an index loop over `this->v`: v's field
  const RecordDecl* record_ = nullptr;     ///< the Dataset's or std::vector's record type
  /// The key fields, each as its path of fields from the record (`{user}`; in a loop over a
  /// std::vector, also nested: `{first, first}` of a std::pair<std::pair<int, int>, double>).
  std::vector<std::vector<const FieldDecl*>> key_paths_;
  /// An integer-range loop: the integer vectors whose element at the index is a key
  /// (`user_of` of `W[user_of[m]]`), key k + 1 (key 0 is the index), with a use for messages.
  std::vector<std::pair<const ValueDecl*, const Expr*>> derived_arrays_;
  /// A ragged nest bounded through a pointer chain (`C[d]->length`): C (PointerChains.h).
  const Expr* bound_chain_ = nullptr;
  std::set<const FieldDecl*> written_fields_;
  std::set<const ValueDecl*> mutated_;       ///< written anywhere in the loop (or a callee)
  std::set<const ValueDecl*> inductions_;    ///< induction variables of inner `for` loops
  std::set<const ValueDecl*> named_in_body_; ///< outer variables the body names directly
  std::vector<const FunctionDecl*> stack_;
  // Reductions: first use order, and outer variables used in other ways.
  std::vector<const VarDecl*> reduction_order_;
  std::map<const VarDecl*, SourceLocation> reduction_loc_;
  std::set<const VarDecl*> accumulators_;
  std::map<const VarDecl*, SourceLocation> outer_read_;
  Frame* body_frame_ = nullptr;
  const CXXMethodDecl* enclosing_method_ = nullptr; ///< the loop is in this member function
  std::map<std::string, const ValueDecl*> symbols_; ///< loop-invariant symbols by name
  mutable std::map<const ValueDecl*, std::string> names_at_loop_; ///< name_at_loop's cache
  mutable int references_followed_ = 0;                           ///< reference_only_read's depth
  std::vector<std::pair<std::string, SourceLocation>> outside_pointer_reads_;
  /// Over a vector: outside names that may alias its elements (note_record_alias).
  std::vector<std::pair<std::string, SourceLocation>> record_alias_reads_;
  /// References declared outside the loop that may point into an array (note_outer_reference).
  std::vector<std::pair<const VarDecl*, SourceLocation>> outside_references_;
  std::set<const VarDecl*> blocked_reductions_; ///< misused reductions: not bound as partials
  /// Row vectors: the stride of their first analysed subscript, how to name them at the loop,
  /// and their first use other than by subscript or size (it blocks the loop when they are
  /// written; a container the loop only reads stays an outside read).
  std::map<std::string, Offset> row_strides_;
  std::map<std::string, std::string> row_expressions_;
  std::set<std::string> eigen_arrays_; ///< the containers that are Eigen matrices
  std::set<std::string> tables_;       ///< the containers that are vectors of vectors
  /// Raw pointer tables: their depth (1 `T*`, 2 `T**`), row length, the rows the loop reaches
  /// in every iteration (with whether an access there reaches the row's last element), and the
  /// first reason their extent cannot be bounded (docs/design/containers.md, "Pointer tables").
  struct PointerRow {
    Sym row;
    Offset reach; ///< how much of the row the access proves is there (-1: nothing)
    std::string text;
    SourceLocation at;
  };
  struct PointerTable {
    int depth = 0;
    bool has_length = false;
    Offset length;
    std::vector<PointerRow> rows;
    /// Accesses the serial loop may skip in an iteration: accepted only inside a row and length
    /// an access in `rows` proves.
    std::vector<PointerRow> conditional;
    /// Named inside a function the body calls, or a member of another object: staged with its
    /// row pointers pointed at the staged rows (stage_object_table), not through a body local.
    bool swapped = false;
    std::string unbounded;
    SourceLocation unbounded_at;
    /// `t[r][c]` whose column c no loop or constant bounds, rewritten to be checked at run time
    /// against the staged row length (LoweringCheckedColumns.cpp).
    struct CheckedColumn {
      Sym row;
      std::string text;
      SourceLocation at;
      SourceRange column;
      std::string table; ///< the table's expression at the access (`nw`, `this->nw`)
      /// A loop counter's bound B when the column is provably in [0, B) (counter_range): no
      /// check is needed when B is the length the other accesses prove.
      std::optional<Offset> within;
    };
    std::vector<CheckedColumn> checked;
    /// A `T*` indexed as one array (`p[k]` in a column loop, `p[topic]` checked at run time):
    /// one row, row 0, of the length its column loops prove (flat_pointer_access).
    bool flat = false;
    /// In a ragged nest: the accesses `t[d][n]` (row the outer index d, column the inner index
    /// n), and whether one of them is made in every iteration (then row d has at least d's count
    /// of elements: LoweringRaggedTables.cpp).
    std::vector<PointerRow> ragged;
    bool ragged_proven = false;
    /// Does an access made in every iteration name `row` and reach its last element (`length`),
    /// proving the whole row is the program's?
    bool proves_whole(const Sym& row, const Offset& length) const {
      return std::any_of(rows.begin(), rows.end(), [&](const PointerRow& o) {
        return o.row.kind == row.kind && o.row.field == row.field && o.row.offset == row.offset &&
               o.reach == length;
      });
    }
  };
  std::map<std::string, PointerTable> pointer_tables_;
  void note_row_length(PointerTable& table, const Offset& length, SourceLocation at);
  bool note_checked_column(PointerTable& table, const ArraySubscriptExpr* row,
                           const ArraySubscriptExpr* element, const Sym& r, Frame& f);
  std::optional<std::pair<std::string, SourceLocation>>
  why_columns_unchecked(const PointerTable& table, const Offset& length) const;
  void emit_column_checks(const std::string& name, const PointerTable& table, const Offset& length);
  // ---- ragged pointer tables t[d][n] (LoweringRaggedTables.cpp) ----------------------------
  bool is_ragged_access(const ArraySubscriptExpr* row, const ArraySubscriptExpr* element,
                        const Sym& r, const Frame& f) const;
  void note_ragged_access(PointerTable& table, const ArraySubscriptExpr* element, Frame& f);
  std::optional<std::pair<std::string, SourceLocation>>
  why_not_ragged(const std::string& name, const PointerTable& table) const;
  std::map<std::string, std::pair<std::string, SourceLocation>> container_misuse_;
  /// Buffered containers (LoweringBuffered.cpp): each container's first use that is not its own
  /// name in the loop body (a helper, `this->w`, `::w`, an alias), and the containers with a
  /// subscript that is not a row of their stride (their buffer is then rows of one element).
  std::map<std::string, std::pair<std::string, SourceLocation>> indirect_namings_;
  std::set<std::string> irregular_rows_;
  /// Helpers the body calls that use a buffered container by its own name: cloned into the loop
  /// when settle_helper_clones accepts them (HelperClones.h), by container.
  std::map<std::string, std::vector<const FunctionDecl*>> clone_candidates_;
  std::set<std::string> read_only_containers_; ///< plain containers the loop only reads
  /// Each container's declaration (nullptr: not known), element type and first use.
  struct ContainerIdentity {
    const ValueDecl* decl = nullptr;
    std::string element;
    SourceLocation first_use;
  };
  std::map<std::string, ContainerIdentity> container_identities_;
  std::set<const ValueDecl*> privates_; ///< scratch buffers and `private(...)` variables
  std::set<std::string> libc_privates_; ///< `private(random)` / `private(rand)`: libc generators
  /// `private(p)` on a `T* p` member of the loop's class (a scratch array like GibbsLDA++'s `p`):
  /// analysed as a pointer table for its length, then bound per worker (PrivateTables.cpp).
  std::set<std::string> private_tables_;
  bool private_member_table(const std::string& name);
  void bind_private_table(const std::string& name, const std::string& expression);
  bool per_worker_name(const std::string& array) const;
  void forget_array(const std::string& name);
  /// Integer scalar temporaries written once in the loop: that assignment (a subscript alias).
  std::map<const ValueDecl*, const BinaryOperator*> scalar_definitions_;
};
} // namespace rotor::frontend::lowering
