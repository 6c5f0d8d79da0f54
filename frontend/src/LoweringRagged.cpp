// Ragged nests (LoopSite::inner): `for (I d = 0; d < D; ++d) for (I n = 0; n < B(d); ++n) body`
// with B(d) `A[d].size()`, `len[d]` or `A[d].f`. The iterations are the pairs (d, n); the keys
// are d and the values of read-only integer tables at (d, n) (`docs[d][n]`), which the inspector
// reads before the loop together with each row's count B(d) (codegen::Inspection::ragged).
#include "LoweringState.h"

#include "LoopSite.h"
#include "PointerChains.h"
#include "RotorTypes.h"

namespace rotor::frontend::lowering {

/// `A[d][n]` or `C[d]->g[n]` (derived_key_array), chosen as a key: its field and the inspector's
/// read of it as a function of d and n. A pair past A's end gets key 0 (the body cannot read that
/// element without undefined behaviour, so the key orders nothing); a chain's row g is read for
/// n below the row's count `C[d]->f`, as the serial loop's own bound does.
void LoopLowering::add_ragged_key(const Expr* e) {
  const std::string d = loop_.var->getNameAsString();
  const std::string n = loop_.inner_var->getNameAsString();
  if (chain_key(e) != nullptr) {
    out_.model.fields.push_back(text_of(e));
    out_.key_reads.push_back(noted_chain_text(e, "rotor_reads", ctx_));
    return;
  }
  const auto* op = cast<CXXOperatorCallExpr>(e->IgnoreParenImpCasts());
  const auto* row = cast<CXXOperatorCallExpr>(op->getArg(0)->IgnoreParenImpCasts());
  const std::string a = "(" + text_of(row->getArg(0)) + ")";
  out_.model.fields.push_back(text_of(row->getArg(0)) + "[" + d + "][" + n + "]");
  const std::string sd = "static_cast<std::size_t>(" + d + ")";
  const std::string sn = "static_cast<std::size_t>(" + n + ")";
  out_.key_reads.push_back("(" + sd + " < " + a + ".size() && " + sn + " < " + a + "[" + sd +
                           "].size() ? " + a + "[" + sd + "][" + sn + "] : 0)");
}

/// `C[d]->g[n]` (chain_key_field) through the same chain C as the inner bound `C[d]->f`: g.
const FieldDecl* LoopLowering::chain_key(const Expr* e) const {
  const Expr* chain = nullptr;
  const FieldDecl* g = bound_chain_ != nullptr && e != nullptr
                           ? chain_key_field(e, loop_.var, loop_.inner_var, chain)
                           : nullptr;
  return g != nullptr && same_pointer_chain(chain, bound_chain_) ? g : nullptr;
}

/// A read (not a write, nor an address taken) of the bound `C[d]->f` or of a key `C[d]->g[n]`
/// in the loop body itself: every byte it reads was noted by the inspector, so run_loop's check
/// stands for the walk's "read through a pointer from outside the loop".
bool LoopLowering::is_chain_read(const Expr* e, Frame& f) const {
  if (bound_chain_ == nullptr || &f != body_frame_) {
    return false;
  }
  const Expr* chain = nullptr;
  const bool bound = chain_bound_field(e, loop_.var, chain) != nullptr &&
                     same_pointer_chain(chain, bound_chain_) &&
                     !isa<ExplicitCastExpr>(e->IgnoreParenImpCasts());
  if (!bound && chain_key(e) == nullptr) {
    return false;
  }
  return classify(e, f).use == Use::read;
}

/// Before the walk: what the rewriter needs of a ragged nest (the inner index and its count as a
/// function of the outer index, read by the inspector before the loop).
void LoopLowering::choose_ragged_space() {
  if (loop_.inner == nullptr) {
    return;
  }
  out_.ragged_index = loop_.inner_var->getNameAsString();
  out_.ragged_bound = text_of(loop_.inner_bound);
  out_.ragged_bound_read = out_.ragged_bound;
  const Expr* chain = nullptr;
  if (chain_bound_field(loop_.inner_bound, loop_.var, chain) != nullptr) {
    bound_chain_ = chain;
    out_.ragged_bound_read = noted_chain_text(
        loop_.inner_bound->IgnoreParenImpCasts()->IgnoreCasts(), "rotor_reads", ctx_);
    out_.chain_reads = true;
    out_.original_loop = text_of(loop_.stmt);
  }
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
  if (bound_chain_ != nullptr) {
    check_chain_root();
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

/// A chain's root (`p` of `p->docs[d]->length`; `this` needs nothing) must be declared outside
/// the loop and not assigned in it: the inspector read the chain from it before the loop. What
/// the chain reaches is checked at run time (codegen::ChainReads), and a write Rotor cannot
/// follow (through a pointer from outside) already makes the loop serial.
void LoopLowering::check_chain_root() {
  const VarDecl* root = pointer_chain_root(bound_chain_);
  if (root == nullptr) {
    return;
  }
  if (inside_loop(root->getLocation()) || mutated_.count(root) != 0) {
    escape(analysis::Escape::Kind::outside_write,
           "the inner loop's bound '" + text_of(loop_.inner_bound) + "' is read through '" +
               root->getNameAsString() +
               "', which is declared or changed in the loop (the inspector counts each row's "
               "iterations before the loop)",
           loop_.inner_bound->getBeginLoc(),
           "leave '" + root->getNameAsString() + "' unchanged in the loop");
  }
}

} // namespace rotor::frontend::lowering
