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
  if (const auto* element = dyn_cast<ArraySubscriptExpr>(e->IgnoreParenImpCasts());
      bound_chain_ != nullptr && element != nullptr) {
    out_.model.fields.push_back(chain_text(e, d, n));
    out_.key_reads.push_back(noted_chain_text(e, "rotor_reads", d, n));
    out_.key_rows.push_back(noted_chain_text(element->getBase(), "rotor_reads", d, n));
    return;
  }
  out_.key_rows.emplace_back();
  const auto* op = cast<CXXOperatorCallExpr>(e->IgnoreParenImpCasts());
  const auto* row = cast<CXXOperatorCallExpr>(op->getArg(0)->IgnoreParenImpCasts());
  const std::string a = "(" + text_of(row->getArg(0)) + ")";
  out_.model.fields.push_back(text_of(row->getArg(0)) + "[" + d + "][" + n + "]");
  const std::string sd = "static_cast<std::size_t>(" + d + ")";
  const std::string sn = "static_cast<std::size_t>(" + n + ")";
  out_.key_reads.push_back("(" + sd + " < " + a + ".size() && " + sn + " < " + a + "[" + sd +
                           "].size() ? " + a + "[" + sd + "][" + sn + "] : 0)");
}

/// Whether `e` names the loop's index `v` in frame `f`: v itself in the body; in a function the
/// loop calls, a by-value integer parameter the function never changes whose argument names v in
/// the caller (`sampling(m, n)`).
bool LoopLowering::names_loop_index(const Expr* e, const VarDecl* v, const Frame& f) const {
  const auto* dre =
      dyn_cast_or_null<DeclRefExpr>(e != nullptr ? e->IgnoreParenImpCasts() : nullptr);
  if (dre == nullptr) {
    return false;
  }
  if (&f == body_frame_) {
    return dre->getDecl() == v;
  }
  const auto* param = dyn_cast<ParmVarDecl>(dre->getDecl());
  const auto arg = param != nullptr ? f.values.find(param) : f.values.end();
  return arg != f.values.end() && f.caller != nullptr && mutated_.count(param) == 0 &&
         names_loop_index(arg->second, v, *f.caller);
}

/// The bound's chain C, met in frame `f`: the same members from the same root, and where the root
/// is `this` in a called function, the loop's own object.
bool LoopLowering::is_bound_chain(const Expr* chain, const Frame& f) const {
  if (bound_chain_ == nullptr || !same_pointer_chain(chain, bound_chain_)) {
    return false;
  }
  const Expr* root = chain->IgnoreParenImpCasts();
  while (const auto* me = dyn_cast<MemberExpr>(root)) {
    root = me->getBase()->IgnoreParenImpCasts();
  }
  return !isa<CXXThisExpr>(root) || &f == body_frame_ || names_loop_object(root, f);
}

/// `C[d]->g[n]` (chain_key_parts) through the inner bound's chain C, d and n the loop's indices
/// in frame `f`: g.
const FieldDecl* LoopLowering::chain_key_in(const Expr* e, const Frame& f) const {
  ChainParts parts;
  const FieldDecl* g =
      bound_chain_ != nullptr && e != nullptr ? chain_key_parts(e, parts) : nullptr;
  return g != nullptr && names_loop_index(parts.row, loop_.var, f) &&
                 names_loop_index(parts.column, loop_.inner_var, f) &&
                 is_bound_chain(parts.chain, f)
             ? g
             : nullptr;
}

const FieldDecl* LoopLowering::chain_key(const Expr* e) const {
  return body_frame_ != nullptr ? chain_key_in(e, *body_frame_) : nullptr;
}

/// The key index of a chain key `C[d]->g[n]` in frame `f`, or -1.
int LoopLowering::chain_key_index(const Expr* e, const Frame& f) const {
  const FieldDecl* g = chain_key_in(e, f);
  for (std::size_t k = 0; g != nullptr && k < derived_arrays_.size(); ++k) {
    if (derived_arrays_[k].first == g) {
      return static_cast<int>(k) + 1;
    }
  }
  return -1;
}

/// A read (not a write, nor an address taken) of the bound `C[d]->f` or of a key `C[d]->g[n]`,
/// in the body or a function it calls with d and n: every byte it reads was noted by the
/// inspector, so run_loop's check stands for the walk's "read through a pointer from outside".
bool LoopLowering::is_chain_read(const Expr* e, Frame& f) const {
  if (bound_chain_ == nullptr || isa<ExplicitCastExpr>(e->IgnoreParenImpCasts())) {
    return false;
  }
  ChainParts parts;
  const bool bound = chain_bound_parts(e, parts) != nullptr &&
                     names_loop_index(parts.row, loop_.var, f) && is_bound_chain(parts.chain, f);
  if (!bound && chain_key_in(e, f) == nullptr) {
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
    out_.ragged_bound_read =
        noted_chain_text(loop_.inner_bound->IgnoreParenImpCasts()->IgnoreCasts(), "rotor_reads",
                         loop_.var->getNameAsString(), loop_.inner_var->getNameAsString());
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
