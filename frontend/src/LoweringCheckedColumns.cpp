// Checked columns (docs/design/containers.md, "Checked columns"): a `T** t` staged for a loop
// holds, per reached row, as many elements as the loop's accesses made in every iteration prove
// the row has (`t[r][k]` in `for (k = 0; k < K; ++k)`). An access `t[r][c]` whose column c no
// loop or constant bounds (a topic read from data, the index a search loop stopped at) could
// reach past that length, into the next staged row: today's programs keep such a table serial.
// Instead, when the access is written in the main file, rotor-cc rewrites its column to
// `codegen::checked_column(t, c, "file:line: text")`, which stops the program with that message
// when c falls outside the staged rows while the loop runs (PointerTable.h): every access then
// stays inside the rows the executors move, and a column that would leave them is reported, never
// silently run. Rows are still only those some access made in every iteration proves whole.

#include "LoweringState.h"
#include "rotor/analysis/Format.h"

namespace rotor::frontend::lowering {

namespace {

/// True when `e` names the table itself, without side effects: `t`, `this->t`, `obj.t`.
bool plain_table_expression(const Expr* e) {
  e = e->IgnoreParenImpCasts();
  if (isa<DeclRefExpr>(e)) {
    return true;
  }
  const auto* me = dyn_cast<MemberExpr>(e);
  return me != nullptr && (isa<CXXThisExpr>(me->getBase()->IgnoreParenImpCasts()) ||
                           plain_table_expression(me->getBase()));
}

} // namespace

/// `element` (`t[r][c]`, row subscript `row`, row `r`) has a column the analysis cannot bound:
/// records it as checked at run time and returns true when rotor-cc can rewrite the column (the
/// access is written in the main file, outside macros, on a plain name of the table, with an
/// integer column); false leaves the table unbounded.
bool LoopLowering::note_checked_column(PointerTable& table, const ArraySubscriptExpr* row,
                                       const ArraySubscriptExpr* element, const Sym& r, Frame& f) {
  const Expr* column = element->getIdx();
  const SourceRange range = column->getSourceRange();
  const bool rewritable = range.getBegin().isFileID() && range.getEnd().isFileID() &&
                          sm_.isWrittenInMainFile(range.getBegin()) &&
                          sm_.isWrittenInMainFile(range.getEnd());
  if (!rewritable || !column->getType()->isIntegerType() ||
      !plain_table_expression(row->getBase())) {
    return false;
  }
  PointerTable::CheckedColumn checked{r,     text_of(element),        element->getBeginLoc(),
                                      range, text_of(row->getBase()), std::nullopt};
  if (const auto range = counter_range(column, f)) {
    checked.within = range->bound;
  }
  table.checked.push_back(std::move(checked));
  return true;
}

/// Why the checked columns of table `name` (`length`: the row length the other accesses prove)
/// cannot be checked, or nothing. A checked access proves nothing, so its row must be one that
/// another access proves whole.
std::optional<std::pair<std::string, SourceLocation>>
LoopLowering::why_columns_unchecked(const PointerTable& table, const Offset& length) const {
  for (const PointerTable::CheckedColumn& c : table.checked) {
    if (!table.has_length && table.flat) {
      return std::make_pair("the index of '" + c.text +
                                "' has no bound, and no access proves the array's length to "
                                "check it against ('p[j]' inside 'for (j = 0; j < K; ++j)' in "
                                "every iteration)",
                            c.at);
    }
    if (!table.has_length) {
      return std::make_pair("the column of '" + c.text +
                                "' has no bound, and no access proves the row length to check "
                                "it against ('t[key][j]' inside 'for (j = 0; j < K; ++j)' in "
                                "every iteration)",
                            c.at);
    }
    if (!table.proves_whole(c.row, length)) {
      return std::make_pair("the column of '" + c.text +
                                "' has no bound, and no access made in every iteration reaches "
                                "the last element of the same row",
                            c.at);
    }
  }
  return std::nullopt;
}

/// Table `name`'s view is made: each of its checked columns (or, for a `T*` used as one array,
/// checked indexes) becomes a LoweredLoop column check.
void LoopLowering::emit_column_checks(const std::string& name, const PointerTable& table,
                                      const Offset& length) {
  const std::string length_text = analysis::offset_text(length, analysis::OffsetStyle::words);
  for (const PointerTable::CheckedColumn& c : table.checked) {
    if (c.within && offset_at_most(*c.within, length)) {
      continue; // a counter below the proven length: inside the row, nothing to check
    }
    const analysis::SourceLoc at = loc_of(c.at);
    const std::string line = at.file + ":" + std::to_string(at.line);
    const std::string what = table.flat ? "index of '" + c.text + "' (" + line +
                                              ") checked at run time against the length "
                                        : "column of '" + c.text + "' (" + line +
                                              ") checked at run time against the row length ";
    out_.column_checks.push_back(
        {c.column, c.table, line + ": " + c.text,
         what + length_text + " of '" + name + "': it has no bound before the loop", table.flat,
         name});
  }
}

} // namespace rotor::frontend::lowering
