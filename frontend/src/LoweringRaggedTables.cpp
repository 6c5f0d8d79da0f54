// Ragged pointer tables (docs/design/containers.md, "Ragged rows of a T** table"): in a ragged
// nest `for (d = 0; d < D; ++d) for (n = 0; n < B(d); ++n)`, an access `t[d][n]` of a `T** t`
// that the serial loop makes in every iteration touches elements 0 .. B(d) - 1 of row d, so row
// d has at least B(d) elements: the row length is the outer index's count, which the inspector
// reads before the loop. A table accessed so may have no other access (another row, another
// column, a column loop, a checked column): its rows are staged with their own lengths
// (codegen::stage_ragged_pointer_table).
#include "LoweringState.h"

namespace rotor::frontend::lowering {

/// True when `element` (`t[r][c]`, row subscript `row` of value `r`) in frame `f` is `t[d][n]` of
/// a ragged nest: the row names the outer index (key 0, nothing added) and the column the inner
/// one, in the body or in a function the body calls with them (names_loop_index).
bool LoopLowering::is_ragged_access(const ArraySubscriptExpr* row,
                                    const ArraySubscriptExpr* element, const Sym& r,
                                    const Frame& f) const {
  return loop_.inner != nullptr && r.kind == Subscript::Kind::key && r.field == 0 &&
         r.offset.is_numeric() && r.offset.value == 0 &&
         names_loop_index(row->getIdx(), loop_.var, f) &&
         names_loop_index(element->getIdx(), loop_.inner_var, f);
}

/// Records the ragged access `element` of `table`; one made in every iteration proves each
/// reached row d as long as d's count.
void LoopLowering::note_ragged_access(PointerTable& table, const ArraySubscriptExpr* element,
                                      Frame& f) {
  const bool every_iteration = reached_every_iteration(element, f, nullptr);
  table.ragged_proven = table.ragged_proven || every_iteration;
  table.ragged.push_back({Sym::key(0), Offset{}, text_of(element), element->getBeginLoc()});
}

/// Why ragged table `name` cannot be staged with its rows' counts as their lengths, or nothing:
/// an access other than `t[d][n]` (its extent is not the counts'), or none made in every
/// iteration.
std::optional<std::pair<std::string, SourceLocation>>
LoopLowering::why_not_ragged(const std::string& name, const PointerTable& table) const {
  const std::string d = loop_.var->getNameAsString();
  const std::string n = loop_.inner_var->getNameAsString();
  const std::string shape = "'" + name + "[" + d + "][" + n + "]'";
  const PointerRow& first = table.ragged.front();
  const auto other = [&](const std::string& text, SourceLocation at) {
    return std::make_pair("'" + first.text + "' gives its rows the ragged length '" +
                              text_of(loop_.inner_bound) + "', and '" + text +
                              "' is not an access " + shape +
                              " (a row of a ragged table is only as long as its count)",
                          at);
  };
  if (!table.rows.empty()) {
    return other(table.rows.front().text, table.rows.front().at);
  }
  if (!table.conditional.empty()) {
    return other(table.conditional.front().text, table.conditional.front().at);
  }
  if (!table.checked.empty()) {
    return other(table.checked.front().text, table.checked.front().at);
  }
  if (!table.ragged_proven) {
    return std::make_pair("'" + first.text +
                              "' is not made in every iteration (it is under a condition, in a "
                              "loop, in a helper called so, or the body or helper can end "
                              "early), and no access " +
                              shape + " made in every iteration covers its row",
                          first.at);
  }
  return std::nullopt;
}

} // namespace rotor::frontend::lowering
