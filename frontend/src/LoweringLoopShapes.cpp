// Loop shapes beyond a range-for over a variable: the index loop over a member vector of the
// loop's object (`for (int j = 0; j < this->v.size(); ++j)`, LoopSite.h).
#include "LoweringState.h"

#include "Privatisation.h"
#include "RotorTypes.h"

namespace rotor::frontend::lowering {

namespace {

const Stmt* parent_value(const Stmt* s, const ParentMap& parents) {
  const Stmt* p = parents.getParent(s);
  while (p != nullptr && isa<ImplicitCastExpr, ParenExpr>(p)) {
    p = parents.getParent(p);
  }
  return p;
}

/// `x.size()` / `x.empty()` (p is the member expression naming the method on x).
bool is_size_query(const Stmt* p) {
  const auto* me = dyn_cast_or_null<MemberExpr>(p);
  if (me == nullptr || !isa<CXXMethodDecl>(me->getMemberDecl())) {
    return false;
  }
  const std::string name = me->getMemberNameInfo().getAsString();
  return name == "size" || name == "empty";
}

} // namespace

/// A use of the member vector an index loop runs over (`i < this->v.size()`): `v[i]` on the
/// loop's own object in the loop's text is the iteration's record and `v.size()` / `v.empty()`
/// (on any object) a read. A use that may change its size is an error (the inspector computes
/// the iterations before the loop); any other use (another element, a reference or pointer to
/// it, the member of another object, any use in a function the loop calls) keeps the loop
/// serial: the analysis does not follow it.
void LoopLowering::on_range_member_use(const MemberExpr* me, Frame& f) {
  const Stmt* p = parent_value(me, *f.parents);
  const bool own = &f == body_frame_ && names_loop_object(me->getBase(), f);
  if (own && p != nullptr && isa<Expr>(p) && is_site_element(loop_, cast<Expr>(p))) {
    return; // `this->v[i]`: the iteration's own record
  }
  if (is_size_query(p)) {
    return;
  }
  const std::string name = "'" + me->getMemberDecl()->getNameAsString() + "'";
  const std::string used = text_of(p != nullptr && isa<Expr>(p) ? p : me);
  const std::string where = &f == body_frame_ || f.fn == nullptr
                                ? ""
                                : " in '" + f.fn->getNameAsString() + "', which the loop calls";
  if (may_resize(me, p, f)) {
    error(me->getBeginLoc(), "the loop may change the size of " + name +
                                 ", the std::vector it runs over ('" + used + "'" + where +
                                 "): Rotor computes the iterations before the loop");
    return;
  }
  escape(analysis::Escape::Kind::outside_write,
         "the vector the loop runs over, " + name + ", is used inside the loop ('" + used + "'" +
             where + ")",
         me->getBeginLoc());
}

/// A member (of any object) that may name records of the vector or Dataset the loop runs over:
/// a std::vector of the loop's record type other than the one the loop runs over, or a
/// reference or pointer to one record. Noted like note_record_alias's variables: it blocks a
/// loop that writes its records.
void LoopLowering::note_member_record_alias(const MemberExpr* me) {
  const auto* fd = dyn_cast<FieldDecl>(me->getMemberDecl());
  if (out_.index_rank != 0 || fd == nullptr || fd == range_field_ || record_ == nullptr) {
    return;
  }
  QualType type = fd->getType().getNonReferenceType();
  const bool handle = fd->getType()->isReferenceType() || type->isPointerType();
  if (type->isPointerType()) {
    type = type->getPointeeType();
  }
  const RecordDecl* element = out_.over_vector ? vector_record(ctx_, type) : dataset_record(type);
  if (element == record_ || (handle && type->getAsRecordDecl() == record_)) {
    record_alias_reads_.emplace_back(fd->getNameAsString(), me->getBeginLoc());
  }
}

} // namespace rotor::frontend::lowering

namespace rotor::frontend::lowering {

/// The key fields of `record` under `prefix`: each integer field the loop does not write (its
/// top-level field, prefix[0] or the field itself, is not in written_fields_). In a loop over a
/// std::vector (the inspector reads keys through any path), also the fields of record-typed
/// fields (a std::pair's `first.first`), named by their path; a Dataset's keys are its own fields.
void LoopLowering::add_key_paths(const RecordDecl* record, std::vector<const FieldDecl*>& prefix) {
  constexpr std::size_t k_max_depth = 4; // a pair of pairs of pairs is deep enough
  for (const FieldDecl* fd : record->fields()) {
    const FieldDecl* head = prefix.empty() ? fd : prefix.front();
    if (written_fields_.count(head)) {
      continue;
    }
    const QualType t = fd->getType();
    const RecordDecl* nested = t->getAsRecordDecl();
    if (t->isIntegerType() && !t->isBooleanType()) {
      std::vector<const FieldDecl*> path = prefix;
      path.push_back(fd);
      std::string name;
      for (const FieldDecl* p : path) {
        name += (name.empty() ? "" : ".") + p->getNameAsString();
      }
      key_paths_.push_back(std::move(path));
      out_.model.fields.push_back(name);
    } else if (out_.over_vector && nested != nullptr && !nested->isUnion() &&
               prefix.size() + 1 < k_max_depth) {
      prefix.push_back(fd);
      add_key_paths(nested, prefix);
      prefix.pop_back();
    }
  }
}

/// An index loop over a std::vector of records whose body names the index other than as the
/// iteration's record `v[i]` (`assignments[i] = c`, `out[i]`, `f(i)`): the index becomes one
/// more key after the record's (its value at iteration i is i), so an array it subscripts is
/// partitioned by it like by any key. Not when a record field already has the index's name, or
/// the loop has as many keys as the inspector takes: the index then stays no key (a subscript
/// by it blocks as before).
void LoopLowering::choose_position_key() {
  if (!loop_.index_loop || !out_.over_vector || out_.model.fields.size() >= k_max_inspected_keys) {
    return;
  }
  const std::string name = loop_var_->getNameAsString();
  auto& fields = out_.model.fields;
  if (std::find(fields.begin(), fields.end(), name) != fields.end() ||
      !names_index_beyond_record(loop_.body)) {
    return;
  }
  out_.position_key = static_cast<int>(fields.size());
  fields.push_back(name);
}

/// Whether `s` names the loop's index anywhere but as the subscript of the site element `v[i]`.
bool LoopLowering::names_index_beyond_record(const Stmt* s) const {
  if (s == nullptr || (isa<Expr>(s) && is_site_element(loop_, cast<Expr>(s)))) {
    return false; // `v[i]`: its base cannot name the index (the lowering checks v is not i)
  }
  if (const auto* dre = dyn_cast<DeclRefExpr>(s); dre != nullptr && dre->getDecl() == loop_var_) {
    return true;
  }
  for (const Stmt* c : s->children()) {
    if (names_index_beyond_record(c)) {
      return true;
    }
  }
  return false;
}

/// `r.user` or `r.first.first` (a chain of members on the loop's record): the index of the key
/// it reads, or -1 (not a key, or not on the loop's record: `r.next->user` reads another record).
int LoopLowering::key_of_member(const MemberExpr* me, Frame& f) {
  std::vector<const FieldDecl*> path;
  for (const MemberExpr* m = me;;) {
    const auto* fd = dyn_cast<FieldDecl>(m->getMemberDecl());
    if (fd == nullptr) {
      return -1;
    }
    path.insert(path.begin(), fd);
    const auto* inner = dyn_cast<MemberExpr>(m->getBase()->IgnoreParenImpCasts());
    if (inner == nullptr) {
      if (target_of(m->getBase(), f).kind != Target::record_k) {
        return -1;
      }
      break;
    }
    if (m->isArrow()) {
      return -1;
    }
    m = inner;
  }
  for (std::size_t k = 0; k < key_paths_.size(); ++k) {
    if (key_paths_[k] == path) {
      return static_cast<int>(k);
    }
  }
  return -1;
}

/// `fd` is the top-level field of a key (writing it writes the key).
bool LoopLowering::is_key_head(const FieldDecl* fd) const {
  for (const auto& path : key_paths_) {
    if (path.front() == fd) {
      return true;
    }
  }
  return false;
}

} // namespace rotor::frontend::lowering

// ---- integer-range loops: `for (I m = 0; m < M; ++m)`, keys m and `A[m]` --------------------

namespace rotor::frontend::lowering {

namespace {

/// `std::vector<I>` (I an integer type other than bool), through references.
bool is_integer_vector(QualType t) {
  const QualType element = std_vector_element(t);
  return !element.isNull() && element->isIntegerType() && !element->isBooleanType();
}

/// `std::vector<std::vector<I>>` (I an integer type other than bool), through references.
bool is_integer_table(QualType t) {
  const QualType row = std_vector_element(t);
  return !row.isNull() && is_integer_vector(row);
}

/// Every use of `n` in `fn`'s body is a read of its value, or an assignment to it outside `loop`
/// and outside any lambda: no pointer, reference or by-reference capture can change it unseen.
/// `bad`: the first other use.
bool used_by_value_only(const VarDecl* n, const Stmt* fn_body, const Stmt* loop,
                        const SourceManager& sm, const Expr*& bad) {
  ParentMap parents(const_cast<Stmt*>(fn_body));
  std::vector<const Stmt*> work{fn_body};
  while (!work.empty()) {
    const Stmt* s = work.back();
    work.pop_back();
    for (const Stmt* c : s->children()) {
      if (c != nullptr) {
        work.push_back(c);
      }
    }
    const auto* dre = dyn_cast<DeclRefExpr>(s);
    if (dre == nullptr || dre->getDecl() != n) {
      continue;
    }
    const Stmt* p = parents.getParent(dre);
    while (p != nullptr && isa<ParenExpr>(p)) {
      p = parents.getParent(p);
    }
    if (const auto* ice = dyn_cast_or_null<ImplicitCastExpr>(p);
        ice != nullptr && ice->getCastKind() == CK_LValueToRValue) {
      continue;
    }
    bool in_lambda = false;
    bool in_loop = false;
    for (const Stmt* a = p; a != nullptr; a = parents.getParent(a)) {
      in_lambda = in_lambda || isa<LambdaExpr>(a);
      in_loop = in_loop || a == loop;
    }
    const auto* bo = dyn_cast_or_null<BinaryOperator>(p);
    const auto* uo = dyn_cast_or_null<UnaryOperator>(p);
    const bool assigned =
        (bo != nullptr && bo->isAssignmentOp() && bo->getLHS()->IgnoreParens() == dre) ||
        (uo != nullptr && uo->isIncrementDecrementOp());
    if (!assigned || in_lambda || in_loop) {
      bad = dre;
      return false;
    }
  }
  (void)sm;
  return true;
}

/// `e` (a subscript `A[m]`) is used as an index: through parentheses, casts and arithmetic, an
/// index of another subscript or call (`W[user_of[m]]`, `nw(docs[m], k)`) or the initial value
/// of a local variable (`const int u = user_of[m];`, which the body may then use as an index).
enum class IndexUse { none, through_local, direct };
IndexUse used_as_index(const Expr* e, const ParentMap& parents) {
  const Stmt* child = e;
  const auto direct_if = [](bool b) { return b ? IndexUse::direct : IndexUse::none; };
  for (const Stmt* p = parents.getParent(e); p != nullptr; child = p, p = parents.getParent(p)) {
    if (isa<ParenExpr, ImplicitCastExpr, ExplicitCastExpr>(p)) {
      continue;
    }
    if (const auto* bo = dyn_cast<BinaryOperator>(p); bo != nullptr && bo->isAdditiveOp()) {
      continue;
    }
    if (const auto* op = dyn_cast<CXXOperatorCallExpr>(p);
        op != nullptr && (op->getOperator() == OO_Subscript || op->getOperator() == OO_Call)) {
      return direct_if(op->getNumArgs() > 0 && op->getArg(0) != child);
    }
    if (const auto* ase = dyn_cast<ArraySubscriptExpr>(p)) {
      return direct_if(ase->getIdx() == child);
    }
    return isa<DeclStmt>(p) ? IndexUse::through_local : IndexUse::none;
  }
  return IndexUse::none;
}

/// The container an lvalue is rooted at (`z` of `z[d][n]`, `this->z[d]`, `r.f`): its
/// declaration, through subscripts, non-arrow members and parentheses; nullptr otherwise.
const ValueDecl* written_root(const Expr* e) {
  for (;;) {
    e = e->IgnoreParenImpCasts();
    if (const auto* op = dyn_cast<CXXOperatorCallExpr>(e);
        op != nullptr && op->getOperator() == OO_Subscript && op->getNumArgs() == 2) {
      e = op->getArg(0);
    } else if (const auto* ase = dyn_cast<ArraySubscriptExpr>(e)) {
      e = ase->getBase();
    } else if (const auto* dre = dyn_cast<DeclRefExpr>(e)) {
      return dre->getDecl();
    } else if (const auto* me = dyn_cast<MemberExpr>(e)) {
      if (isa<CXXThisExpr>(me->getBase()->IgnoreParenImpCasts())) {
        return me->getMemberDecl();
      }
      if (me->isArrow()) {
        return nullptr;
      }
      e = me->getBase();
    } else {
      return nullptr;
    }
  }
}

/// The containers the loop's own text assigns to, increments or decrements through
/// (`z[d][n] = t`): a syntactic look, used only to leave them out of the key candidates (the
/// walk, which also follows helpers, decides whether a chosen key's container is read only).
std::set<const ValueDecl*> assigned_in_text(const Stmt* body) {
  std::set<const ValueDecl*> out;
  visit_statements(body, [&](const Stmt* s) {
    const Expr* target = nullptr;
    if (const auto* bo = dyn_cast<BinaryOperator>(s); bo != nullptr && bo->isAssignmentOp()) {
      target = bo->getLHS();
    } else if (const auto* uo = dyn_cast<UnaryOperator>(s);
               uo != nullptr && uo->isIncrementDecrementOp()) {
      target = uo->getSubExpr();
    } else if (const auto* op = dyn_cast<CXXOperatorCallExpr>(s);
               op != nullptr && op->isAssignmentOp() && op->getNumArgs() > 0) {
      target = op->getArg(0);
    }
    if (const ValueDecl* root = target != nullptr ? written_root(target) : nullptr) {
      out.insert(root);
    }
  });
  return out;
}

} // namespace

// (declared in LoweringState.h)
const ValueDecl* named_container(const Expr* base) {
  base = base->IgnoreParenImpCasts();
  if (const auto* dre = dyn_cast<DeclRefExpr>(base)) {
    return dyn_cast<VarDecl>(dre->getDecl());
  }
  if (const auto* me = dyn_cast<MemberExpr>(base);
      me != nullptr && isa<CXXThisExpr>(me->getBase()->IgnoreParenImpCasts())) {
    return dyn_cast<FieldDecl>(me->getMemberDecl());
  }
  return nullptr;
}

/// `M` or `this->M`, an integer data member of the object the loop's method runs on: its field;
/// nullptr for anything else.
const FieldDecl* LoopLowering::range_bound_member(const Expr* bound) const {
  const auto* me = dyn_cast<MemberExpr>(bound->IgnoreParenImpCasts());
  const auto* fd = me != nullptr ? dyn_cast<FieldDecl>(me->getMemberDecl()) : nullptr;
  if (fd == nullptr || !isa<CXXThisExpr>(me->getBase()->IgnoreParenImpCasts()) ||
      !fd->getType()->isIntegerType() || fd->getType()->isReferenceType() || fd->isBitField()) {
    return nullptr;
  }
  return fd;
}

/// `for (I m = 0; m < M; ++m)`: no records; the iterations are the integers [0, M). M must be
/// an integer constant expression (`m < 100`, `m < kUsers`), a local variable or by-value
/// parameter of the loop's function used only by value there, or an integer member of the loop's
/// object that the loop does not write (range_bound_member): it cannot change while the loop
/// runs, so the inspector's count is the loop's. False, with an error, otherwise.
bool LoopLowering::choose_range_space() {
  const auto accept = [&] {
    out_.model.space = analysis::SpaceKind::dataset;
    out_.over_vector = true;
    out_.int_range = true;
    out_.range = text_of(loop_.range);
    return true;
  };
  // `m < 100`; or `m < M` / `m < this->M`, an integer member of the loop's object: the walk
  // makes any write to it, or any use that may lead to one (its address, a reference to it, a
  // method of this object that writes it), an escape (on_this, as for an integer member used as
  // a row stride), so a loop that may change it is serial and runs as written.
  if (is_constant_bound(loop_.range, ctx_) || range_bound_member(loop_.range) != nullptr) {
    return accept();
  }
  const auto* dre = dyn_cast<DeclRefExpr>(loop_.range->IgnoreParenImpCasts());
  const auto* n = dre != nullptr ? dyn_cast<VarDecl>(dre->getDecl()) : nullptr;
  const auto* fn = dyn_cast_or_null<FunctionDecl>(loop_.var->getParentFunctionOrMethod());
  const Expr* bad = nullptr;
  if (n == nullptr || fn == nullptr || fn->getBody() == nullptr || !n->isLocalVarDeclOrParm() ||
      n->isStaticLocal() || n->getType()->isReferenceType() ||
      !used_by_value_only(n, fn->getBody(), loop_.stmt, sm_, bad)) {
    error(bad != nullptr ? bad->getBeginLoc() : loop_.range->getBeginLoc(),
          "the bound '" + text_of(loop_.range) +
              "' of an integer-range '#pragma rotor parallel_for' loop must be an integer "
              "constant, or a local variable or by-value parameter that the function only reads "
              "or assigns outside the loop (no pointer, reference or lambda may reach it), so "
              "that it cannot change while the loop runs");
    return false;
  }
  return accept();
}

/// An integer-range loop's keys: the index itself (key 0), then each integer vector whose
/// element at the index the loop's text uses as an index, `user_of[m]` (used_as_index; whether
/// it is read only, check_derived_keys proves after the walk).
void LoopLowering::choose_range_keys() {
  const std::string index = loop_var_->getNameAsString();
  out_.model.fields.push_back(index);
  out_.key_reads.push_back(index);
  const ParentMap parents(const_cast<Stmt*>(loop_.body));
  std::vector<const Stmt*> work{loop_.body};
  std::vector<const Expr*> found;    // in source order
  std::set<const ValueDecl*> direct; // arrays with an element used as an index directly
  while (!work.empty()) {
    const Stmt* s = work.back();
    work.pop_back();
    for (const Stmt* c : s->children()) {
      if (c != nullptr) {
        work.push_back(c);
      }
    }
    const auto* e = dyn_cast<Expr>(s);
    const ValueDecl* array = e != nullptr ? derived_key_array(e) : nullptr;
    const IndexUse use = array != nullptr ? used_as_index(e, parents) : IndexUse::none;
    if (use != IndexUse::none) {
      found.push_back(e);
    }
    if (use == IndexUse::direct) {
      direct.insert(array);
    }
  }
  // A table the loop's text writes (`const int t = z[d][n]; ... z[d][n] = t2;`, an LDA
  // sampler's topics) is no key where only a local copies its element: leaving it out costs a
  // key that can only be read from a written table (check_derived_keys would make the loop
  // serial). An element used as an index directly (`W[user_of[m]]`) stays a candidate, so the
  // loop says which key it lost.
  const std::set<const ValueDecl*> assigned = assigned_in_text(loop_.body);
  found.erase(std::remove_if(found.begin(), found.end(),
                             [&](const Expr* e) {
                               const ValueDecl* a = derived_key_array(e);
                               return assigned.count(a) != 0 && direct.count(a) == 0;
                             }),
              found.end());
  std::sort(found.begin(), found.end(), [&](const Expr* a, const Expr* b) {
    return sm_.isBeforeInTranslationUnit(a->getBeginLoc(), b->getBeginLoc());
  });
  for (const Expr* e : found) {
    const ValueDecl* array = derived_key_array(e);
    if (derived_key(e) >= 0) {
      continue;
    }
    derived_arrays_.emplace_back(array, e);
    if (loop_.inner != nullptr) {
      add_ragged_key(e);
      continue;
    }
    const auto* op = cast<CXXOperatorCallExpr>(e->IgnoreParenImpCasts());
    const std::string a = text_of(op->getArg(0));
    out_.model.fields.push_back(a + "[" + index + "]");
    // Read before the loop for every index, also where the body guards the read: an index past
    // the vector's end gets key 0 (the body cannot read that element without undefined
    // behaviour, so the key orders nothing).
    out_.key_reads.push_back("(static_cast<std::size_t>(" + index + ") < (" + a + ").size() ? (" +
                             a + ")[static_cast<std::size_t>(" + index + ")] : 0)");
  }
  if (bound_chain_ != nullptr) {
    add_helper_chain_keys();
  }
}

namespace {

/// Every use of `param` in `body` only reads its value (under an lvalue-to-rvalue conversion).
bool only_read(const ParmVarDecl* param, const Stmt* body) {
  const ParentMap parents(const_cast<Stmt*>(body));
  bool read_only = true;
  visit_statements(body, [&](const Stmt* s) {
    const auto* dre = dyn_cast<DeclRefExpr>(s);
    if (dre == nullptr || dre->getDecl() != param) {
      return;
    }
    const auto* load = dyn_cast_or_null<ImplicitCastExpr>(parents.getParent(dre));
    read_only = read_only && load != nullptr && load->getCastKind() == CK_LValueToRValue;
  });
  return read_only;
}

} // namespace

/// A ragged nest bounded through a chain: keys `C[d]->g[n]` read in functions the body calls
/// with d and n as by-value integer arguments the function only reads (`sampling(m, n)`, a
/// method of the loop's object, or a free function), each used as an index there: chosen like
/// the body's own (LoweringRagged.cpp), after them. Only direct calls of the body are searched.
void LoopLowering::add_helper_chain_keys() {
  const bool in_method = method_of(loop_var_->getDeclContext()) != nullptr;
  std::vector<const Stmt*> work{loop_.body};
  while (!work.empty()) {
    const Stmt* s = work.back();
    work.pop_back();
    for (const Stmt* c : s->children()) {
      if (c != nullptr && !isa<LambdaExpr>(c)) {
        work.push_back(c);
      }
    }
    const auto* call = dyn_cast<CallExpr>(s);
    const FunctionDecl* fd = call != nullptr ? call->getDirectCallee() : nullptr;
    const FunctionDecl* def = fd != nullptr ? fd->getDefinition() : nullptr;
    if (def == nullptr || def->getBody() == nullptr || isa<CXXOperatorCallExpr>(call)) {
      continue;
    }
    Frame scan;
    scan.fn = def;
    scan.caller = body_frame_;
    if (const auto* member = dyn_cast<CXXMemberCallExpr>(call)) {
      const Expr* object = member->getImplicitObjectArgument();
      if (!in_method || object == nullptr || !isa<CXXThisExpr>(object->IgnoreParenImpCasts())) {
        continue;
      }
      scan.this_object = object;
    }
    for (unsigned i = 0; i < call->getNumArgs() && i < def->getNumParams(); ++i) {
      const ParmVarDecl* param = def->getParamDecl(i);
      if (param->getType()->isIntegerType() && only_read(param, def->getBody())) {
        scan.values[param] = call->getArg(i);
      }
    }
    const ParentMap parents(const_cast<Stmt*>(def->getBody()));
    std::vector<const Stmt*> inner{def->getBody()};
    while (!inner.empty()) {
      const Stmt* t = inner.back();
      inner.pop_back();
      for (const Stmt* c : t->children()) {
        if (c != nullptr) {
          inner.push_back(c);
        }
      }
      const auto* e = dyn_cast<Expr>(t);
      const FieldDecl* g = e != nullptr ? chain_key_in(e, scan) : nullptr;
      if (g == nullptr || used_as_index(e, parents) == IndexUse::none ||
          std::any_of(derived_arrays_.begin(), derived_arrays_.end(),
                      [&](const auto& d) { return d.first == g; })) {
        continue;
      }
      derived_arrays_.emplace_back(g, e);
      add_ragged_key(e);
    }
  }
}

/// `A[m]`: A a std::vector of integers declared outside the loop (a variable, or a member of
/// the loop's object) subscripted by the integer-range loop's own index: A's declaration.
const ValueDecl* LoopLowering::derived_key_array(const Expr* e) const {
  if (!loop_.int_range) {
    return nullptr;
  }
  if (loop_.inner != nullptr) { // a ragged nest: `A[i][n]`, A a table of integers
    if (const FieldDecl* g = chain_key(e)) {
      return g; // `C[i]->words[n]` through the bound's chain (LoweringRagged.cpp)
    }
    const Expr* row = subscripted_by(e, loop_.inner_var);
    const Expr* table = row != nullptr ? subscript_base_by(row, loop_.var) : nullptr;
    const ValueDecl* d = table != nullptr ? named_container(table) : nullptr;
    return d != nullptr && !inside_loop(d->getLocation()) && is_integer_table(d->getType())
               ? d
               : nullptr;
  }
  const auto* op = dyn_cast<CXXOperatorCallExpr>(e->IgnoreParenImpCasts());
  if (op == nullptr || op->getOperator() != OO_Subscript || op->getNumArgs() != 2) {
    return nullptr;
  }
  const auto* index = dyn_cast<DeclRefExpr>(op->getArg(1)->IgnoreParenImpCasts());
  if (index == nullptr || index->getDecl() != loop_var_) {
    return nullptr;
  }
  const Expr* base = op->getArg(0)->IgnoreParenImpCasts();
  const ValueDecl* d = nullptr;
  if (const auto* dre = dyn_cast<DeclRefExpr>(base)) {
    const auto* vd = dyn_cast<VarDecl>(dre->getDecl());
    d = vd != nullptr && !inside_loop(vd->getLocation()) ? vd : nullptr;
  } else if (const auto* me = dyn_cast<MemberExpr>(base);
             me != nullptr && isa<CXXThisExpr>(me->getBase()->IgnoreParenImpCasts())) {
    d = dyn_cast<FieldDecl>(me->getMemberDecl());
  }
  return d != nullptr && is_integer_vector(d->getType()) ? d : nullptr;
}

/// The key index of `A[m]` (derived_key_array, chosen by choose_range_keys), or -1.
int LoopLowering::derived_key(const Expr* e) const {
  const ValueDecl* array = derived_key_array(e);
  for (std::size_t k = 0; array != nullptr && k < derived_arrays_.size(); ++k) {
    if (derived_arrays_[k].first == array) {
      return static_cast<int>(k) + 1;
    }
  }
  return -1;
}

/// After the walk: every vector a key is read from must be read only in the loop (no write,
/// no other use than a subscript or size query, through any path the walk follows), or the key
/// the inspector read before the loop may differ from the one the body uses: the loop is serial.
void LoopLowering::check_derived_keys() {
  const auto& accesses = out_.model.accesses;
  for (const auto& [array, use] : derived_arrays_) {
    if (isa<ArraySubscriptExpr>(use->IgnoreParenImpCasts())) { // `C[d]->g[n]` (chain_key_in)
      continue; // a pointer chain: run_loop checks that the loop writes none of it
    }
    const std::string name = array->getNameAsString();
    const bool written = std::any_of(accesses.begin(), accesses.end(),
                                     [&](const auto& a) { return a.array == name && a.write; });
    const bool analysed = row_expressions_.count(name) != 0;
    if (written || container_misuse_.count(name) != 0 || !analysed) {
      escape(analysis::Escape::Kind::outside_write,
             "the key '" + text_of(use) + "' is read from '" + name + "', which the loop " +
                 (analysed ? "may change" : "uses in a way Rotor does not follow") +
                 " (the inspector reads the keys before the loop)",
             use->getBeginLoc());
    }
  }
}

} // namespace rotor::frontend::lowering
