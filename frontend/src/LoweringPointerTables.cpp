// Raw pointer tables as parameter arrays (docs/design/containers.md, "Pointer tables"): a `T* p`
// indexed `p[row * stride + j]` (rows of a flat array, like a std::vector) and a `T** t` indexed
// `t[row][k]` (one allocation per row). Nothing in the type says how many rows there are or how
// long a row is, so the analysis bounds both from the accesses: the row length is the stride, or
// the bound of the column loop `for (k = 0; k < K; ++k)` (or a constant column + 1), and the rows
// are those the records' keys (or constants) name. That is sound only for accesses the serial
// program makes in every iteration: an access under a condition, in a helper, or in a loop other
// than the column loop leaves the extent unbounded and the loop serial, as does any use of the
// pointer other than these subscripts.

#include "LoweringState.h"
#include "RotorTypes.h"
#include "rotor/analysis/Format.h"

#include <algorithm>

namespace rotor::frontend::lowering {

namespace {

/// `e` without parentheses and implicit casts.
const Expr* bare(const Expr* e) {
  return e == nullptr ? nullptr : e->IgnoreParenImpCasts();
}

/// The parent of `s`, skipping parentheses and implicit casts.
const Stmt* parent_skipping_casts(const Stmt* s, const ParentMap& parents, const Stmt*& child) {
  child = s;
  const Stmt* p = parents.getParent(s);
  while (p != nullptr && isa<ParenExpr, ImplicitCastExpr>(p)) {
    child = p;
    p = parents.getParent(p);
  }
  return p;
}

/// True when `s` holds a statement that can end an iteration early (return, continue, break,
/// goto, throw): then no access after it is made in every iteration. A `break` or `continue`
/// inside a loop nested in `s` (or a `break` inside a nested switch) ends only that loop or
/// switch, not the iteration.
bool may_leave_early(const Stmt* s, bool in_inner_loop = false, bool in_switch = false) {
  if (s == nullptr || isa<LambdaExpr>(s)) {
    return false;
  }
  if (isa<ReturnStmt, GotoStmt, IndirectGotoStmt, CXXThrowExpr>(s) ||
      (isa<ContinueStmt>(s) && !in_inner_loop) ||
      (isa<BreakStmt>(s) && !in_inner_loop && !in_switch)) {
    return true;
  }
  const bool loop = isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(s);
  const bool sw = isa<SwitchStmt>(s);
  for (const Stmt* child : s->children()) {
    if (may_leave_early(child, in_inner_loop || loop, in_switch || sw)) {
      return true;
    }
  }
  return false;
}

/// `record`: the Dataset's record type, or "" in a loop over a std::vector or an integer range,
/// whose keys are the inspected iterations' (`range` is then `rotor_inspection`, the loop's
/// codegen::Inspection<N>, whose iterations' key i is field k<i>, and which keeps their
/// histograms while the keys do not change).
std::string reach_text(const Sym& row, const std::string& range, const std::string& record,
                       const analysis::LoopModel& m) {
  if (row.kind == Subscript::Kind::key && row.offset.is_numeric() && row.field >= 0) {
    const std::string field =
        record.empty() ? "::rotor::codegen::Iteration<" + std::to_string(m.fields.size()) + ">::k" +
                             std::to_string(row.field)
                       : record + "::" + m.fields[static_cast<std::size_t>(row.field)];
    return "::rotor::codegen::rows_of_key(" + range + ", &" + field + ", " +
           std::to_string(row.offset.value) + ")";
  }
  if (row.kind == Subscript::Kind::constant && row.offset.is_numeric() && row.offset.value >= 0) {
    return "::rotor::codegen::rows_of_constant(" + std::to_string(row.offset.value) + ")";
  }
  return "";
}

/// True when `child` runs whenever its parent `p` does (on the way up from an access): not a
/// branch of `?:` or `if`, the right side of `&&` / `||`, a lambda, or a loop other than the
/// body of `column_loop` (which runs whenever the row is not empty, for every column when nothing
/// in its body can end a pass early).
bool unconditional_step(const Stmt* p, const Stmt* child, const ForStmt* column_loop) {
  if (const auto* co = dyn_cast<AbstractConditionalOperator>(p)) {
    return child == co->getCond();
  }
  if (const auto* bo = dyn_cast<BinaryOperator>(p)) {
    return !bo->isLogicalOp() || child == bo->getLHS();
  }
  if (const auto* is = dyn_cast<IfStmt>(p)) {
    return child == is->getCond() || child == is->getInit();
  }
  if (const auto* fs = dyn_cast<ForStmt>(p)) {
    // Every k of the column loop reaches the access only when nothing in its body ends a pass
    // (or the loop) early: a `break` / `continue` / `return` there proves no row length.
    return fs == column_loop && child == fs->getBody() && !may_leave_early(fs->getBody());
  }
  if (isa<LambdaExpr>(p)) {
    return false;
  }
  return isa<Expr, CompoundStmt, DeclStmt, NullStmt>(p); // not while, do, switch, try, a label
}

std::string describe_use(const Target& t, const std::string& what) {
  return "'" + t.array + "' (a " + t.container + ") is used other than by subscript (" + what + ")";
}

} // namespace

/// A use of pointer table `t`: `p[index]` (T*) or `t[row][column]` (T**) is an access; anything
/// else (the pointer passed to a function, `*p`, `p + i`, a row pointer kept) is a misuse, and
/// counts as a write: the pointer may reach any element from there.
void LoopLowering::on_pointer_use(const Expr* use, const Stmt* /*parent*/, const Target& t,
                                  Frame& f) {
  PointerTable& table = pointer_tables_[t.array];
  table.depth = t.pointer;
  table.swapped = table.swapped || t.in_object || &f != body_frame_;
  const Stmt* child = nullptr;
  const Stmt* p = parent_skipping_casts(use, *f.parents, child);
  const auto* row = dyn_cast_or_null<ArraySubscriptExpr>(p);
  if (row == nullptr || row->getBase()->IgnoreParenImpCasts() != use->IgnoreParenImpCasts()) {
    misused_container(t, describe_use(t, text_of(use)), use->getBeginLoc());
    add_access(t, true, {}, use);
    return;
  }
  if (t.pointer == 1 && flat_pointer_access(t, row, f)) {
    return;
  }
  if (t.pointer == 1) {
    const std::vector<Subscript> subs = row_vector_subscripts(row->getIdx(), t, f);
    const UseInfo u = classify(row, f);
    add_access(t, u.use != Use::read && u.use != Use::alias_init, subs, row);
    if (u.use == Use::address || u.use == Use::alias_init) {
      misused_container(t, describe_use(t, text_of(row) + ", its address or a reference to it"),
                        row->getBeginLoc());
    }
    const auto stride = row_strides_.find(t.array);
    Offset reach;
    const ForStmt* loop = nullptr;
    reach.value = -1; // covers the row's last element: set below
    if (stride != row_strides_.end() && subs.front().kind != Subscript::Kind::unknown) {
      Offset length;
      const Expr* column = nullptr;
      const Expr* index = bare(row->getIdx());
      const auto is_product = [](const Expr* e) {
        const auto* mul = dyn_cast<BinaryOperator>(bare(e));
        return mul != nullptr && mul->getOpcode() == BO_Mul;
      };
      if (const auto* add = dyn_cast<BinaryOperator>(index);
          add != nullptr && add->getOpcode() == BO_Add &&
          (is_product(add->getLHS()) || is_product(add->getRHS()))) {
        column = is_product(add->getRHS()) ? add->getLHS() : add->getRHS();
      }
      if (column == nullptr) {
        if (stride->second.is_numeric() && stride->second.value == 1) {
          reach = stride->second;
        }
      } else if (pointer_column(column, f, length, loop) && length == stride->second) {
        reach = length;
      }
    }
    Sym row_sym;
    row_sym.kind = subs.front().kind;
    row_sym.field = subs.front().field;
    row_sym.offset = subs.front().offset;
    note_pointer_row(t, row_sym, text_of(row), reach, loop, row, f);
    return;
  }
  const Stmt* element_child = nullptr;
  const auto* element =
      dyn_cast_or_null<ArraySubscriptExpr>(parent_skipping_casts(row, *f.parents, element_child));
  if (element == nullptr || element->getBase()->IgnoreParenImpCasts() != row) {
    misused_container(t, describe_use(t, text_of(row) + ", a row pointer"), row->getBeginLoc());
    add_access(t, true, {}, row);
    return;
  }
  const UseInfo u = classify(element, f);
  const Sym r = eval(row->getIdx(), f);
  add_access(
      t, u.use != Use::read && u.use != Use::alias_init,
      {to_subscript(r, text_of(row->getIdx())), Subscript::whole(text_of(element->getIdx()))},
      element);
  if (u.use == Use::address || u.use == Use::alias_init) {
    misused_container(t, describe_use(t, text_of(element) + ", its address or a reference to it"),
                      element->getBeginLoc());
  }
  if (is_ragged_access(row, element, r, f)) {
    note_ragged_access(table, element, f);
    return;
  }
  Offset length;
  const ForStmt* loop = nullptr;
  if (!pointer_column(element->getIdx(), f, length, loop)) {
    if (!note_checked_column(table, row, element, r, f) && table.unbounded.empty()) {
      table.unbounded = "its column '" + text_of(element->getIdx()) +
                        "' is neither a constant nor the counter of a loop 'for (k = 0; k < K; "
                        "++k)' around the access";
      table.unbounded_at = element->getBeginLoc();
    }
    return;
  }
  note_row_length(table, length, element->getBeginLoc());
  note_pointer_row(t, r, text_of(element), length, loop, element, f);
}

/// The row length `length` an access at `at` proves: the table's is the largest, when Rotor can
/// compare them (offset_at_most).
void LoopLowering::note_row_length(PointerTable& table, const Offset& length, SourceLocation at) {
  if (!table.has_length) {
    table.length = length;
    table.has_length = true;
  } else if (offset_at_most(table.length, length)) {
    table.length = length;
  } else if (!offset_at_most(length, table.length) && table.unbounded.empty()) {
    table.unbounded = "its columns have bounds Rotor cannot compare (" +
                      analysis::offset_text(table.length, analysis::OffsetStyle::words) + " and " +
                      analysis::offset_text(length, analysis::OffsetStyle::words) + ")";
    table.unbounded_at = at;
  }
}

/// `p[index]` on a `T* p` whose index is no row of the records' keys: `p` is then one array, row
/// 0, whose length the counter of a column loop `for (k = 0; k < K; ++k)` proves (`p[k]`; the
/// length is K); an index nothing bounds (a sampled topic) is checked at run time against that
/// length when `p` is buffered or private (the worker's buffer or copy is only that long).
/// Returns false, changing nothing, for an index this does not cover.
bool LoopLowering::flat_pointer_access(const Target& t, const ArraySubscriptExpr* access,
                                       Frame& f) {
  const Expr* index = access->getIdx();
  Sym split_row;
  Offset stride;
  const Sym value = eval(index, f);
  // A private array has no rows: its constant indexes are checked like any other.
  const bool private_array = private_tables_.count(t.array) != 0;
  if (value.kind == Subscript::Kind::key ||
      (value.kind == Subscript::Kind::constant && !private_array) ||
      split_row_index(index, f, split_row, stride)) {
    return false;
  }
  PointerTable& table = pointer_tables_[t.array];
  Sym row0;
  row0.kind = Subscript::Kind::constant;
  row0.offset.value = 0;
  Offset length;
  const ForStmt* loop = nullptr;
  const bool bounded =
      value.kind != Subscript::Kind::constant && pointer_column(index, f, length, loop);
  if (!bounded &&
      !(per_worker_name(t.array) && note_checked_column(table, access, access, row0, f))) {
    return false;
  }
  table.flat = true;
  const UseInfo u = classify(access, f);
  add_access(t, u.use != Use::read && u.use != Use::alias_init,
             {to_subscript(row0, "0"), Subscript::whole(text_of(index))}, access);
  if (u.use == Use::address || u.use == Use::alias_init) {
    misused_container(t, describe_use(t, text_of(access) + ", its address or a reference to it"),
                      access->getBeginLoc());
  }
  if (bounded) {
    note_row_length(table, length, access->getBeginLoc());
    note_pointer_row(t, row0, text_of(access), length, loop, access, f);
  }
  return true;
}

/// The row length column `column` proves: a constant c >= 0 gives c + 1; the counter of an
/// enclosing `for (k = 0; k < K; ++k)` (nothing else changes k) gives K (`loop` is that loop).
bool LoopLowering::pointer_column(const Expr* column, Frame& f, Offset& length,
                                  const ForStmt*& loop) {
  loop = nullptr;
  if (const auto* dre = dyn_cast_or_null<DeclRefExpr>(bare(column))) {
    // A parameter of a function the body calls, not written there: its argument's bound.
    const auto* pvd = dyn_cast<ParmVarDecl>(dre->getDecl());
    const auto it = pvd == nullptr ? f.values.end() : f.values.find(pvd);
    if (it != f.values.end() && f.caller != nullptr && mutated_.count(pvd) == 0) {
      return pointer_column(it->second, *f.caller, length, loop);
    }
  }
  const Sym value = eval(column, f);
  if (value.kind == Subscript::Kind::constant && value.offset.is_numeric()) {
    length = Offset{};
    length.value = value.offset.value + 1;
    return value.offset.value >= 0;
  }
  if (dyn_cast_or_null<DeclRefExpr>(bare(column)) == nullptr) {
    return false;
  }
  const auto range = counter_range(column, f);
  if (!range || !range->whole) {
    return false;
  }
  length = range->bound;
  loop = range->loop;
  return true;
}

/// True when the serial program makes `access` in every iteration of the loop (so the rows and
/// row lengths it names are memory the program owns): in the loop body itself, with nothing that
/// ends an iteration early, and under no condition, short-circuit, lambda or loop other than
/// `column_loop` (which runs whenever the row is not empty).
bool LoopLowering::reached_every_iteration(const Expr* access, Frame& f,
                                           const ForStmt* column_loop) const {
  if (&f != body_frame_) {
    // In a function the body calls: unconditional there, and the call reached every iteration.
    return f.call != nullptr && f.caller != nullptr && reached_in_callee(access, f, column_loop) &&
           reached_every_iteration(f.call, *f.caller, column_loop);
  }
  // A ragged nest's iteration is one pass of the inner body: its `continue` ends the iteration.
  if (may_leave_early(loop_.inner != nullptr ? loop_.inner->getBody() : loop_.body)) {
    return false;
  }
  const Stmt* child = access;
  for (const Stmt* p = f.parents->getParent(access); p != nullptr;
       child = p, p = f.parents->getParent(p)) {
    if (p == loop_.body) {
      return true;
    }
    if (!unconditional_step(p, child, column_loop)) {
      return false;
    }
  }
  return false;
}

/// True when `access`, in the function frame `f` analyses, runs whenever the function does: on
/// the way up to the function's body, nothing but what reached_every_iteration allows (and the
/// `return` whose value it is), and no statement of the body before it can end the call early.
bool LoopLowering::reached_in_callee(const Expr* access, const Frame& f,
                                     const ForStmt* column_loop) const {
  const auto* body = f.fn == nullptr ? nullptr : dyn_cast_or_null<CompoundStmt>(f.fn->getBody());
  if (body == nullptr || isa<CXXConstructorDecl, CXXDestructorDecl>(f.fn)) {
    return false;
  }
  const Stmt* child = access;
  for (const Stmt* p = f.parents->getParent(access); p != nullptr;
       child = p, p = f.parents->getParent(p)) {
    if (p == body) {
      for (const Stmt* s : body->body()) {
        if (s == child) {
          return true;
        }
        if (may_leave_early(s)) {
          return false;
        }
      }
      return false;
    }
    if (!isa<ReturnStmt>(p) && !unconditional_step(p, child, column_loop)) {
      return false;
    }
  }
  return false;
}

/// Records that `access` names row `row` of pointer table `t`, reaching `reach` elements of it
/// (the row length, when the access proves the row that long); the first access the analysis
/// cannot use to bound the table's extent leaves it unbounded, with the reason.
void LoopLowering::note_pointer_row(const Target& t, const Sym& row, const std::string& text,
                                    const Offset& reach, const ForStmt* column_loop,
                                    const Expr* access, Frame& f) {
  PointerTable& table = pointer_tables_[t.array];
  if (!reached_every_iteration(access, f, column_loop)) {
    // Proves nothing, but stays inside what an access made in every iteration proves when it
    // names the same row and reaches no further (checked in pointer_table_view).
    table.conditional.push_back({row, reach, text, access->getBeginLoc()});
    return;
  }
  table.rows.push_back({row, reach, text, access->getBeginLoc()});
}

/// The binding of written pointer table `name` (named `expression` at the loop), or "" after an
/// escape that says why its extent cannot be bounded.
std::string LoopLowering::pointer_table_view(const std::string& name,
                                             const std::string& expression) {
  PointerTable& table = pointer_tables_[name];
  const std::string kind = table.depth == 1 ? "a T* table" : "a T** table";
  const auto unbounded = [&](const std::string& why, SourceLocation at) {
    escape(analysis::Escape::Kind::plain_container,
           "the extent of '" + name + "' (" + kind + ") cannot be bounded: " + why, at,
           "index it as p[key * K + j] / t[key][j] inside 'for (int j = 0; j < K; ++j)' in every "
           "iteration, or make it a rotor::DistArray or std::vector");
    return std::string();
  };
  if (!table.unbounded.empty()) {
    return unbounded(table.unbounded, table.unbounded_at);
  }
  const Expr* range = bare(loop_.range);
  const bool plain_range =
      range != nullptr &&
      (isa<DeclRefExpr>(range) ||
       (isa<MemberExpr>(range) && isa<CXXThisExpr>(bare(cast<MemberExpr>(range)->getBase()))));
  if (out_.index_rank != 0 || (!out_.over_vector && !plain_range)) {
    return unbounded("its rows are counted from the keys of a Dataset named by a variable, and "
                     "this loop is over '" +
                         text_of(loop_.range) + "'",
                     loop_.stmt->getBeginLoc());
  }
  if (!table.ragged.empty()) { // t[d][n] in a ragged nest: each row as long as its count
    if (const auto refusal = why_not_ragged(name, table)) {
      return unbounded(refusal->first, refusal->second);
    }
    return std::string(table.swapped ? "::rotor::codegen::stage_ragged_object_table("
                                     : "::rotor::codegen::stage_ragged_pointer_table(") +
           expression + ", rotor_inspection)";
  }
  const auto stride = row_strides_.find(name);
  if (table.flat && stride != row_strides_.end()) {
    return unbounded("it is indexed both as one array ('" + name +
                         "[k]' in a column loop, or a checked index) and by rows of the records' "
                         "keys or constants",
                     loop_.stmt->getBeginLoc());
  }
  const Offset length = table.depth == 1 && !table.flat && stride != row_strides_.end()
                            ? stride->second
                            : table.length;
  std::vector<std::string> reaches;
  for (const PointerRow& r : table.rows) {
    // Over a std::vector: the rows its keys name, as the inspector read them before the loop.
    const std::string reach = out_.over_vector
                                  ? reach_text(r.row, "rotor_inspection", "", out_.model)
                                  : reach_text(r.row, text_of(range), out_.record_type, out_.model);
    if (reach.empty()) {
      return unbounded("the row of '" + r.text +
                           "' is not a key field plus a number or a "
                           "constant",
                       r.at);
    }
    // Some access to the same row must reach its last element (`p[row * K + j]` in 'for (j = 0;
    // j < K; ++j)', or the constant column K - 1): that proves the whole row is the program's.
    if (!table.proves_whole(r.row, length)) {
      return unbounded("no access to the row of '" + r.text +
                           "' reaches the row's last element ('p[row * K + j]' with j the counter "
                           "of 'for (j = 0; j < K; ++j)', or the constant K - 1)",
                       r.at);
    }
    if (std::find(reaches.begin(), reaches.end(), reach) == reaches.end()) {
      reaches.push_back(reach);
    }
  }
  for (const PointerRow& c : table.conditional) {
    if (!offset_at_most(c.reach, length) || !table.proves_whole(c.row, length)) {
      return unbounded("'" + c.text +
                           "' is not made in every iteration (it is under a condition, in an inner "
                           "loop other than its column loop, in a helper called so, or the body or "
                           "helper can end early), and no access made in every iteration covers "
                           "its row",
                       c.at);
    }
  }
  if (const auto refusal = why_columns_unchecked(table, length)) {
    return unbounded(refusal->first, refusal->second);
  }
  if (reaches.empty()) {
    return unbounded("no access names a row", loop_.stmt->getBeginLoc());
  }
  emit_column_checks(name, table, length);
  const std::string length_text = analysis::offset_text(length, analysis::OffsetStyle::cpp);
  std::string list;
  for (const std::string& r : reaches) {
    list += (list.empty() ? "" : ", ") + r;
  }
  const char* binding = table.depth == 1 ? "::rotor::codegen::adopt_pointer_rows("
                        : table.swapped  ? "::rotor::codegen::stage_object_table("
                                         : "::rotor::codegen::stage_pointer_table(";
  return std::string(binding) + expression + ", " + length_text + ", {" + list + "})";
}

/// A pointer table the loop only reads is not bound: like any read through a pointer from outside
/// the loop, it blocks a loop that writes (it may point into what the loop writes).
void LoopLowering::block_pointer_read(const std::string& name) {
  const auto& m = out_.model;
  const bool writes =
      out_.writes_records || std::any_of(m.accesses.begin(), m.accesses.end(),
                                         [](const analysis::Access& a) { return a.write; });
  if (writes) {
    escape(analysis::Escape::Kind::pointer_taken,
           "reads through '" + name +
               "', a pointer from outside the loop (it may point into an array the loop writes)",
           container_identities_[name].first_use);
  }
}

} // namespace rotor::frontend::lowering
