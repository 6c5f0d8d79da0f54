// Ragged nests (LoopSite::inner): `for (I d = 0; d < D; ++d) for (I n = 0; n < B(d); ++n) body`
// with B(d) `A[d].size()`, `len[d]` or `A[d].f`. The iterations are the pairs (d, n); the keys
// are d and the values of read-only integer tables at (d, n) (`docs[d][n]`), which the inspector
// reads before the loop together with each row's count B(d) (codegen::Inspection::ragged).
#include "LoweringState.h"

#include "LoopSite.h"
#include "RotorTypes.h"

namespace rotor::frontend::lowering {

/// `A[d][n]` (derived_key_array), chosen as a key: its field `A[d][n]` and the inspector's read
/// of it as a function of d and n. A pair past A's end gets key 0 (the body cannot read that
/// element without undefined behaviour, so the key orders nothing).
void LoopLowering::add_ragged_key(const CXXOperatorCallExpr* op) {
  const std::string d = loop_.var->getNameAsString();
  const std::string n = loop_.inner_var->getNameAsString();
  const auto* row = cast<CXXOperatorCallExpr>(op->getArg(0)->IgnoreParenImpCasts());
  const std::string a = "(" + text_of(row->getArg(0)) + ")";
  out_.model.fields.push_back(text_of(row->getArg(0)) + "[" + d + "][" + n + "]");
  const std::string sd = "static_cast<std::size_t>(" + d + ")";
  const std::string sn = "static_cast<std::size_t>(" + n + ")";
  out_.key_reads.push_back("(" + sd + " < " + a + ".size() && " + sn + " < " + a + "[" + sd +
                           "].size() ? " + a + "[" + sd + "][" + sn + "] : 0)");
}

/// Before the walk: what the rewriter needs of a ragged nest (the inner index and its count as a
/// function of the outer index, read by the inspector before the loop).
void LoopLowering::choose_ragged_space() {
  if (loop_.inner == nullptr) {
    return;
  }
  out_.ragged_index = loop_.inner_var->getNameAsString();
  out_.ragged_bound = text_of(loop_.inner_bound);
}

/// A use of the inner loop's index `n` in the inner body: only reads (each pair (d, n) is one
/// iteration; the executor binds n as a constant). Else an error naming the use.
void LoopLowering::check_inner_index_use(const DeclRefExpr* dre, Frame& f) {
  if (loop_.inner == nullptr || dre->getDecl() != loop_.inner_var || &f != body_frame_) {
    return;
  }
  const SourceRange body = loop_.inner->getBody()->getSourceRange();
  const SourceLocation at = dre->getBeginLoc();
  if (sm_.isBeforeInTranslationUnit(at, body.getBegin()) ||
      sm_.isBeforeInTranslationUnit(body.getEnd(), at)) {
    return; // the inner loop's own header: `n < B`, `++n`
  }
  const Use use = classify(dre, f).use;
  if (use != Use::read && use != Use::alias_init) {
    error(at, "the inner loop's index '" + out_.ragged_index +
                  "' is written or aliased in its body (in a ragged nest each pair (" +
                  loop_.var->getNameAsString() + ", " + out_.ragged_index +
                  ") is one iteration: the inner index may only be read)");
  }
}

/// After the walk: the container the inner bound reads (`docs` of `docs[d].size()`) must be a
/// std::vector the loop only reads (no write, no use Rotor does not follow, through any path the
/// walk follows), or the counts the inspector read before the loop may differ from the loop's:
/// the loop is serial (and runs as written).
void LoopLowering::check_ragged_bound() {
  if (loop_.inner == nullptr) {
    return;
  }
  const Expr* base = ragged_bound_array(loop_.inner_bound, loop_.var);
  const ValueDecl* array = base != nullptr ? named_container(base) : nullptr;
  const std::string bound = "'" + text_of(loop_.inner_bound) + "'";
  if (array == nullptr ||
      std_vector_element(array->getType()).isNull()) { // LoopSite checked: defensive
    escape(analysis::Escape::Kind::outside_write,
           "the inner loop's bound " + bound +
               " does not read a std::vector (Rotor counts each row's iterations before the loop "
               "only through a std::vector it can see is not changed)",
           loop_.inner_bound->getBeginLoc(),
           "bound the inner loop by 'v[d].size()', 'len[d]' or 'v[d].field' with v a "
           "std::vector the loop only reads");
    return;
  }
  const std::string name = array->getNameAsString();
  const auto& accesses = out_.model.accesses;
  const bool written = std::any_of(accesses.begin(), accesses.end(),
                                   [&](const auto& a) { return a.array == name && a.write; });
  const bool analysed = row_expressions_.count(name) != 0;
  if (written || container_misuse_.count(name) != 0 || !analysed) {
    escape(analysis::Escape::Kind::outside_write,
           "the inner loop's bound " + bound + " is read from '" + name + "', which the loop " +
               (analysed ? "may change" : "uses in a way Rotor does not follow") +
               " (the inspector counts each row's iterations before the loop)",
           loop_.inner_bound->getBeginLoc(),
           "leave '" + name +
               "' unchanged in the loop (change it after the loop), so that each row's count "
               "the inspector reads before the loop is the loop's");
  }
}

} // namespace rotor::frontend::lowering
