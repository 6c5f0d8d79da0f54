// Plain containers as parameter arrays (docs/design/containers.md): a std::vector or std::array
// the loop indexes as rows (`v[row]` is rows of one element), `v[key * stride + j]` with `stride`
// loop-invariant and `j` provably in [0, stride), is modelled as a 2-D array (rows, stride) whose
// first subscript is `key` and whose second is the whole row. Every other use of such a vector
// (resize, data(), a copy, a reference to it) blocks the loop when the loop writes the vector; a
// vector the loop only reads stays an ordinary outside read.

#include "LoweringState.h"

#include "KnownCallees.h"
#include "RotorTypes.h"
#include "rotor/analysis/Format.h"

#include <algorithm>
#include <functional>
#include <set>

namespace rotor::frontend::lowering {

/// `e` without parentheses and implicit conversions that keep every value (ids are never
/// negative, so a widening sign change keeps them too); nullptr when a conversion may not.
const Expr* strip_value_preserving(const Expr* e, const ASTContext& ctx) {
  while (true) {
    e = e->IgnoreParens();
    const auto* cast = dyn_cast<ImplicitCastExpr>(e);
    if (cast == nullptr) {
      return e;
    }
    const QualType from = cast->getSubExpr()->getType();
    const QualType to = cast->getType();
    if (from->isIntegerType() && to->isIntegerType() &&
        ctx.getIntWidth(to) < ctx.getIntWidth(from)) {
      return nullptr;
    }
    e = cast->getSubExpr();
  }
}

namespace {

std::string describe_use(const Target& t, const std::string& what) {
  const char* article = t.container.rfind("Eigen", 0) == 0 ? "an " : "a ";
  return "'" + t.array + "' (" + article + t.container +
         ") is used other than by subscript or size() (" + what + ")";
}

} // namespace

/// A std::vector or std::array variable visible at the loop (a global, or a local or parameter of a
/// function around the loop, captures included): the array named after it.
Target LoopLowering::row_vector_variable(const VarDecl* vd) const {
  Target t = container_target(vd->getType());
  if (t.kind != Target::array_k) {
    return {};
  }
  if (!visible_at_loop(vd) || name_at_loop(vd).empty()) {
    return {};
  }
  t.array = name_at_loop(vd); // `::v` where the loop's function shadows a global v
  t.expression = t.array;
  t.decl = vd;
  return t;
}

/// The array target of a plain container of type `type` (its name still unset), or none.
Target LoopLowering::container_target(QualType type) const {
  Target t;
  t.element = pointer_table_element(ctx_, type, t.pointer);
  if (!t.element.empty()) {
    t.container = t.pointer == 1 ? "T* table" : "T** table";
    t.kind = Target::array_k;
    t.rank = 2;
    t.row_vector = true;
    return t;
  }
  t.element = row_vector_element(ctx_, type);
  if (t.element.empty()) {
    t.element = table_element(ctx_, type);
    t.table = !t.element.empty();
    t.container = "std::vector<std::vector>";
  }
  if (t.element.empty()) {
    t.eigen = eigen_layout(ctx_, type, t.element);
    if (t.eigen == 0) {
      return {};
    }
    t.container = "Eigen::Matrix";
  } else if (!t.table) {
    t.container = row_container_name(type);
  }
  t.kind = Target::array_k;
  t.rank = 2;
  t.row_vector = true;
  return t;
}

/// True when `base` is the object the loop's own member function runs on (`this`, also through
/// member functions called on it).
bool LoopLowering::names_loop_object(const Expr* base, const Frame& f) const {
  if (!isa<CXXThisExpr>(base->IgnoreParenImpCasts())) {
    return false;
  }
  if (&f == body_frame_) {
    return enclosing_method_ != nullptr;
  }
  return f.this_object != nullptr && f.caller != nullptr &&
         names_loop_object(f.this_object, *f.caller);
}

/// A std::vector or std::array member of the loop's own object: the array named after the member.
Target LoopLowering::row_vector_member(const MemberExpr* me, const FieldDecl* fd, Frame& f) const {
  if (!names_loop_object(me->getBase(), f)) {
    return {};
  }
  Target t = container_target(fd->getType());
  if (t.kind != Target::array_k) {
    return {};
  }
  t.array = fd->getNameAsString();
  t.expression = "this->" + t.array;
  t.decl = fd;
  return t;
}

void LoopLowering::misused_container(const Target& t, const std::string& how, SourceLocation at) {
  container_misuse_.emplace(t.array, std::make_pair(how, at));
}

void LoopLowering::on_row_vector_use(const Expr* use, const Stmt* parent, const Target& t,
                                     Frame& f) {
  note_array(t);
  note_container_naming(use, t, f);
  row_expressions_.emplace(t.array, t.expression);
  container_identities_.emplace(t.array, ContainerIdentity{t.decl, t.element, use->getBeginLoc()});
  if (t.eigen != 0) {
    on_eigen_use(use, parent, t, f);
    return;
  }
  if (t.table) {
    on_table_use(use, parent, t, f);
    return;
  }
  if (t.pointer != 0) {
    on_pointer_use(use, parent, t, f);
    return;
  }
  if (const auto* op = dyn_cast_or_null<CXXOperatorCallExpr>(parent);
      op != nullptr && op->getOperator() == OO_Subscript && op->getNumArgs() == 2 &&
      op->getArg(0) == use) {
    const UseInfo u = classify(op, f);
    add_access(t, u.use != Use::read && u.use != Use::alias_init,
               row_vector_subscripts(op->getArg(1), t, f), op);
    if (u.use == Use::address) {
      escape(analysis::Escape::Kind::pointer_taken,
             "a pointer into " + t.array + " is taken (" + text_of(op) + ")", op->getBeginLoc());
    }
    return;
  }
  if (const auto* me = dyn_cast_or_null<MemberExpr>(parent)) {
    const std::string name = me->getMemberNameInfo().getAsString();
    if (name == "size" || name == "empty" || name == "max_size") {
      return;
    }
    const auto* call = dyn_cast_or_null<CXXMemberCallExpr>(f.parents->getParent(me));
    const auto* md = call != nullptr ? call->getMethodDecl() : nullptr;
    misused_container(t, describe_use(t, text_of(call ? static_cast<const Expr*>(call) : me)),
                      me->getBeginLoc());
    add_access(t, md == nullptr || !md->isConst(), {}, me);
    return;
  }
  if (const auto* call = dyn_cast_or_null<CallExpr>(parent);
      call != nullptr && analysable_callee(call->getDirectCallee())) {
    const FunctionDecl* fd = call->getDirectCallee();
    for (unsigned i = 0; i < call->getNumArgs() && i < fd->getNumParams(); ++i) {
      if (call->getArg(i)->IgnoreParenImpCasts() == use->IgnoreParenImpCasts() &&
          fd->getParamDecl(i)->getType()->isReferenceType()) {
        return; // bound to the callee's parameter: its uses there are recorded
      }
    }
  }
  const UseInfo u = classify(use, f);
  misused_container(t, describe_use(t, text_of(use)), use->getBeginLoc());
  add_access(t, u.use != Use::read && u.use != Use::alias_init, {}, use);
}

/// A table `std::vector<std::vector<T>> t` (docs/design/containers.md, "Tables"): `t[row][k]` is
/// the access (row, whole) (any in-bounds k is an element of row `row` only); `t[row].size()`,
/// `t.size()` and `t.empty()` are shape queries. The body names the staged copy through a local of
/// the table's name, so only these uses written in the loop body itself are accepted (not in a
/// helper, not through an explicit `this->`): any other use is a misuse, which blocks the loop
/// when the loop writes the table.
void LoopLowering::on_table_use(const Expr* use, const Stmt* parent, const Target& t, Frame& f) {
  tables_.insert(t.array);
  const auto* member = dyn_cast<MemberExpr>(use->IgnoreParenImpCasts());
  const bool named_plainly = &f == body_frame_ && (member == nullptr || member->isImplicitAccess());
  if (const auto* me = dyn_cast_or_null<MemberExpr>(parent); me != nullptr && named_plainly) {
    const std::string name = me->getMemberNameInfo().getAsString();
    if (name == "size" || name == "empty") {
      return;
    }
  }
  if (const auto* op = dyn_cast_or_null<CXXOperatorCallExpr>(parent);
      op != nullptr && named_plainly && op->getOperator() == OO_Subscript &&
      op->getNumArgs() == 2 && op->getArg(0) == use && on_table_row(op, t, f)) {
    return;
  }
  const std::string how = named_plainly ? text_of(use)
                                        : text_of(use) + ", outside the loop body "
                                                         "or through this->";
  const UseInfo u = classify(use, f);
  misused_container(t, describe_use(t, how), use->getBeginLoc());
  add_access(t, u.use != Use::read && u.use != Use::alias_init, {}, use);
}

/// `t[row]` followed by `[k]` (an element: recorded) or by `.size()` / `.empty()`; false for any
/// other use of the row (an alias, a method, a copy).
bool LoopLowering::on_table_row(const CXXOperatorCallExpr* row, const Target& t, Frame& f) {
  const Stmt* parent = f.parents->getParent(row);
  const Expr* row_use = row; // `t[row]` with its parentheses and conversions (`.size()`: to const)
  while (parent != nullptr &&
         (isa<ParenExpr>(parent) || (isa<ImplicitCastExpr>(parent) &&
                                     cast<ImplicitCastExpr>(parent)->getCastKind() == CK_NoOp))) {
    row_use = cast<Expr>(parent);
    parent = f.parents->getParent(parent);
  }
  if (const auto* me = dyn_cast_or_null<MemberExpr>(parent)) {
    const std::string name = me->getMemberNameInfo().getAsString();
    return name == "size" || name == "empty";
  }
  const auto* element = dyn_cast_or_null<CXXOperatorCallExpr>(parent);
  if (element == nullptr || element->getOperator() != OO_Subscript || element->getNumArgs() != 2 ||
      element->getArg(0) != row_use) {
    return false;
  }
  const UseInfo u = classify(element, f);
  const std::vector<Subscript> subs = {
      to_subscript(eval(row->getArg(1), f), text_of(row->getArg(1))),
      Subscript::whole(text_of(element->getArg(1)))};
  add_access(t, u.use != Use::read && u.use != Use::alias_init, subs, element);
  if (u.use == Use::address) {
    escape(analysis::Escape::Kind::pointer_taken,
           "a pointer into " + t.array + " is taken (" + text_of(element) + ")",
           element->getBeginLoc());
  }
  return true;
}

/// The subscripts of `v[index]` in the (rows, stride) model: {row, whole} when `index` is
/// `row * stride + column` with `column` in [0, stride) and the same stride as the vector's other
/// subscripts; {unknown, whole} otherwise (the loop then stays serial, naming `index`).
std::vector<Subscript> LoopLowering::row_vector_subscripts(const Expr* index, const Target& t,
                                                           Frame& f) {
  const std::string text = text_of(index);
  Sym row;
  Offset stride;
  if (!split_row_index(index, f, row, stride) && !whole_row_index(index, f, row, stride)) {
    irregular_rows_.insert(t.array);
    return {Subscript::unknown(text), Subscript::whole(text)};
  }
  const auto [it, first] = row_strides_.emplace(t.array, stride);
  if (!first && it->second != stride) {
    irregular_rows_.insert(t.array);
    return {Subscript::unknown(text), Subscript::whole(text)};
  }
  return {to_subscript(row, text), Subscript::whole(text)};
}

/// `v[row]`: rows of one element, for a subscript the analysis knows (`bias[r.user]`).
bool LoopLowering::whole_row_index(const Expr* index, Frame& f, Sym& row, Offset& stride) {
  const Sym s = eval(index, f);
  if (s.kind == Subscript::Kind::unknown) {
    return false;
  }
  row = s;
  stride = Offset{};
  stride.value = 1;
  return true;
}

/// `row * stride + column`, `stride * row + column`, `column + row * stride` or `row * stride`
/// (column 0), with `stride` loop-invariant.
bool LoopLowering::split_row_index(const Expr* index, Frame& f, Sym& row, Offset& stride) {
  const Expr* e = strip_value_preserving(index, ctx_);
  if (e == nullptr) {
    return false;
  }
  std::vector<std::pair<const Expr*, const Expr*>> splits; // (product, column)
  const auto* bo = dyn_cast<BinaryOperator>(e);
  if (bo != nullptr && bo->getOpcode() == BO_Add) {
    splits.emplace_back(bo->getLHS(), bo->getRHS());
    splits.emplace_back(bo->getRHS(), bo->getLHS());
  } else {
    splits.emplace_back(e, nullptr);
  }
  for (const auto& [product_expr, column] : splits) {
    const Expr* product = strip_value_preserving(product_expr, ctx_);
    const auto* mul = dyn_cast_or_null<BinaryOperator>(product);
    if (mul == nullptr || mul->getOpcode() != BO_Mul) {
      continue;
    }
    for (const auto& [r, s] : {std::make_pair(mul->getLHS(), mul->getRHS()),
                               std::make_pair(mul->getRHS(), mul->getLHS())}) {
      const Sym rs = eval(r, f);
      const Sym ss = eval(s, f);
      if (rs.kind == Subscript::Kind::unknown || ss.kind != Subscript::Kind::constant) {
        continue;
      }
      if (column_in_row(column, ss.offset, f)) {
        row = rs;
        stride = ss.offset;
        return true;
      }
    }
  }
  return false;
}

/// True when `column` (nullptr: 0) is provably in [0, stride): a number below a numeric stride,
/// or a counter below `stride` (counter_range).
bool LoopLowering::column_in_row(const Expr* column, const Offset& stride, Frame& f) {
  if (column == nullptr) {
    return stride.is_numeric() && stride.value >= 1;
  }
  const Expr* c = strip_value_preserving(column, ctx_);
  if (c == nullptr) {
    return false;
  }
  const Sym value = eval(c, f);
  if (value.kind == Subscript::Kind::constant && value.offset.is_numeric()) {
    return stride.is_numeric() && value.offset.value >= 0 && value.offset.value < stride.value;
  }
  const auto range = counter_range(c, f);
  return range && range->bound == stride;
}

/// An Eigen::Matrix: `M(i, j)`, `M.coeffRef(i, j)`, `M.row(i)`, `M.col(j)` (a vector: `v(i)`,
/// `v[i]`), in the view's coordinates: (row, column) for a row-major matrix, (column, row) for a
/// column-major one (its memory is the transposed row-major array), (i, whole) for a vector.
void LoopLowering::on_eigen_use(const Expr* use, const Stmt* parent, const Target& t, Frame& f) {
  eigen_arrays_.insert(t.array);
  const auto sub = [&](const Expr* e) { return to_subscript(eval(e, f), text_of(e)); };
  std::vector<Subscript> subs;
  const Expr* access = nullptr;
  const Expr* whole = use;        // what a use other than an element, row or column is
  std::vector<const Expr*> index; // (row, column) as the user wrote them
  bool row = false;
  bool column = false;
  if (const auto* op = dyn_cast_or_null<CXXOperatorCallExpr>(parent);
      op != nullptr && op->getNumArgs() > 1 && op->getArg(0) == use &&
      (op->getOperator() == OO_Call || op->getOperator() == OO_Subscript)) {
    for (unsigned i = 1; i < op->getNumArgs(); ++i) {
      index.push_back(op->getArg(i));
    }
    access = op;
  } else if (const auto* me = dyn_cast_or_null<MemberExpr>(parent)) {
    const std::string name = me->getMemberNameInfo().getAsString();
    const auto* call = dyn_cast_or_null<CXXMemberCallExpr>(f.parents->getParent(me));
    if (name == "rows" || name == "cols" || name == "size") {
      return;
    }
    if (call != nullptr) {
      whole = call;
    }
    if (call != nullptr && (name == "coeffRef" || name == "coeff")) {
      for (const Expr* arg : call->arguments()) {
        index.push_back(arg);
      }
      access = call;
    } else if (call != nullptr && call->getNumArgs() == 1 && (name == "row" || name == "col")) {
      index.push_back(call->getArg(0));
      row = name == "row";
      column = name == "col";
      access = call;
    }
  }
  const bool vector_index = t.eigen == 'V' && index.size() == 1 && !row && !column;
  const bool matrix_index = t.eigen != 'V' && (index.size() == 2 || row || column);
  if (access == nullptr || (!vector_index && !matrix_index)) {
    whole = access != nullptr ? access : whole;
    const UseInfo u = classify(whole, f);
    misused_container(t, describe_use(t, text_of(whole)), whole->getBeginLoc());
    // A view of the whole matrix bound to a variable (`auto v = M.transpose();`): writes through
    // the variable are not followed, so binding it is a write. A copy (`MatrixXd c = M;`) reads.
    const bool bound_view =
        u.use == Use::alias_init && (u.var == nullptr || !owns_elements(u.var->getType()));
    add_access(t, (u.use != Use::read && u.use != Use::alias_init) || bound_view, {}, whole);
    return;
  }
  if (vector_index) {
    subs = {sub(index[0]), Subscript::whole()};
  } else {
    // (i, j) as written; a row or column is the whole other dimension.
    Subscript i = column ? Subscript::whole() : sub(index[0]);
    Subscript j = row ? Subscript::whole() : sub(column ? index[0] : index[1]);
    subs = t.eigen == 'R' ? std::vector<Subscript>{i, j} : std::vector<Subscript>{j, i};
  }
  const UseInfo u = classify(access, f);
  const int at = add_access(t, u.use != Use::read && u.use != Use::alias_init, subs, access);
  if (u.use == Use::address) {
    escape(analysis::Escape::Kind::pointer_taken,
           "a pointer into " + t.array + " is taken (" + text_of(access) + ")",
           access->getBeginLoc());
  }
  if (u.use == Use::alias_init && u.var != nullptr && !u.var->getType()->isArithmeticType()) {
    Target alias; // `auto w = M.row(u)`: writes through w are writes to this access
    alias.kind = Target::row_k;
    alias.array = t.array;
    alias.access = at;
    f.env[u.var] = alias;
  }
}

namespace {

/// Whether the container declared as `d` may be an alias of another one (a reference, or not
/// known: deny by default).
bool may_name_another(const ValueDecl* d) {
  return d == nullptr || d->getType()->isReferenceType() || d->getType()->isPointerType();
}

/// A local variable (not static, not a reference) that owns its elements (owns_elements: a
/// std::vector, std::array, Eigen::Matrix, ...; not a view such as an `Eigen::Map` over another
/// container's memory).
const VarDecl* owning_local(const ValueDecl* d) {
  const auto* v = dyn_cast_or_null<VarDecl>(d);
  const bool owns = v != nullptr && v->isLocalVarDecl() && !v->isStaticLocal() &&
                    !v->getType()->isReferenceType() && owns_elements(v->getType());
  return owns ? v : nullptr;
}

/// Whether `a` is a container object local to a function and `b` a parameter of the same
/// function: never the same memory (the parameter was bound before the local existed; a
/// recursive call's parameter names the caller's local, not this frame's).
bool local_and_own_parameter(const ValueDecl* a, const ValueDecl* b) {
  const VarDecl* local = owning_local(a);
  const auto* param = dyn_cast_or_null<ParmVarDecl>(b);
  return local != nullptr && param != nullptr &&
         local->getParentFunctionOrMethod() == param->getDeclContext();
}

/// A container class holding its arithmetic elements itself, contiguous from `data()` for
/// `size()` elements (`std::vector<float>`, `std::array`, `Eigen::Matrix<float, ...>`, not a
/// packed `std::vector<bool>`): no other container lives inside its elements.
bool flat_container(QualType t) {
  const auto* spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      t.getNonReferenceType()->getAsCXXRecordDecl());
  static const std::set<std::string> contiguous = {"vector", "array", "Matrix", "Array"};
  if (spec == nullptr || !owns_elements(t) || contiguous.count(spec->getNameAsString()) == 0 ||
      spec->getTemplateArgs().size() == 0 ||
      spec->getTemplateArgs()[0].getKind() != TemplateArgument::Type) {
    return false;
  }
  const QualType element = spec->getTemplateArgs()[0].getAsType();
  return element->isArithmeticType() && !element->isBooleanType();
}

/// Whether `a` and `b` name flat containers of different classes (a row-major and a column-major
/// `Eigen::Matrix`, a `std::vector` and a `std::array`): two objects, each owning its elements.
bool distinct_flat_classes(const ValueDecl* a, const ValueDecl* b) {
  if (a == nullptr || b == nullptr || !flat_container(a->getType()) ||
      !flat_container(b->getType())) {
    return false;
  }
  const QualType ta = a->getType().getNonReferenceType().getCanonicalType().getUnqualifiedType();
  const QualType tb = b->getType().getNonReferenceType().getCanonicalType().getUnqualifiedType();
  return ta != tb;
}

} // namespace

/// A container the loop only reads is not bound (its reads are outside reads), so the runtime
/// cannot see that it is the memory of a written one (`f(W, W)` with `const std::vector<float>&
/// X` read and `W` written). Where either may be a reference and the element types match, the
/// loop stays serial, unless one is a container object local to the loop's function and the
/// other a parameter of that function (`Eigen::MatrixXf I = ...;` read, `MatrixXf& U` written),
/// or both are flat containers of different classes (`const MatrixXf& V` read, a row-major `U`
/// written). Two flat containers of one class (`MatrixXf& U, MatrixXf& V`) are compared when the
/// loop starts instead: the loop runs serially when their memory overlaps.
void LoopLowering::block_read_alias(const std::string& read, const std::set<std::string>& written) {
  const ContainerIdentity& r = container_identities_[read];
  for (const std::string& w : written) {
    const ContainerIdentity& o = container_identities_[w];
    if (r.element == o.element && (may_name_another(r.decl) || may_name_another(o.decl)) &&
        !local_and_own_parameter(r.decl, o.decl) && !local_and_own_parameter(o.decl, r.decl) &&
        !distinct_flat_classes(r.decl, o.decl)) {
      if (r.decl != nullptr && o.decl != nullptr && flat_container(r.decl->getType()) &&
          flat_container(o.decl->getType())) {
        out_.model.memory_checks.push_back({read, w});
        out_.memory_checks.push_back({row_expressions_.at(read), row_expressions_.at(w)});
        continue; // compared when the loop starts (codegen::unless_shared)
      }
      escape(analysis::Escape::Kind::outside_write,
             "'" + read + "' is read and may be the same container as '" + w +
                 "', which the loop writes (a reference to " + r.element +
                 " elements): Rotor cannot tell them apart",
             r.first_use,
             "pass '" + read + "' and '" + w +
                 "' as distinct objects the loop can name (not through references), or make "
                 "them rotor::DistArrays");
      return;
    }
  }
}

/// After the walk: a vector the loop only reads leaves the model (an outside read, as before);
/// a written one is a parameter array when every use was a subscript or size query, else its
/// first other use blocks the loop (a buffered one: LoweringBuffered.cpp).
void LoopLowering::settle_containers() {
  auto& m = out_.model;
  std::set<std::string> written_containers;
  for (const auto& [name, expression] : row_expressions_) {
    if (std::any_of(m.accesses.begin(), m.accesses.end(),
                    [&](const auto& a) { return a.array == name && a.write; })) {
      written_containers.insert(name);
    }
  }
  for (analysis::ArrayDecl& a : m.arrays) { // what a suggestion may offer to buffer
    if (written_containers.count(a.name) != 0) {
      a.bufferable = !why_not_buffered(a.name).has_value();
    }
  }
  for (const auto& [name, expression] : row_expressions_) {
    const bool written = written_containers.count(name) != 0;
    if (private_tables_.count(name) != 0 && container_misuse_.count(name) == 0) {
      bind_private_table(name, expression);
      continue;
    }
    if (!written) {
      read_only_containers_.insert(name);
      block_read_alias(name, written_containers);
      if (pointer_tables_.count(name) != 0) {
        block_pointer_read(name); // as for any read through an outside pointer
      }
      forget_array(name);
      continue;
    }
    if (const auto misuse = container_misuse_.find(name); misuse != container_misuse_.end()) {
      const std::string shapes =
          pointer_tables_.count(name) != 0
              ? "subscripts p[key * stride + j] or t[key][j] (0 <= j < the row length)"
          : tables_.count(name) ? "t[row][k], t[row].size() and t.size() in the loop body itself"
                                : "subscripts v[key * stride + j] (0 <= j < stride) and size() in "
                                  "the loop";
      escape(analysis::Escape::Kind::plain_container, misuse->second.first, misuse->second.second,
             "use '" + name + "' only through " + shapes + ", or make it a rotor::DistArray");
    }
    if (m.is_buffered(name)) {
      LoweredLoop::RowVector rv;
      rv.name = name;
      buffered_container(name, expression, rv); // no view (serial) when it cannot be buffered
      out_.row_vectors.push_back(rv);
      continue;
    }
    const auto stride = row_strides_.find(name);
    std::string view;
    const auto pointer = pointer_tables_.find(name);
    if (pointer != pointer_tables_.end()) {
      view = container_misuse_.count(name) != 0 ? "" : pointer_table_view(name, expression);
    } else if (tables_.count(name)) {
      view = "::rotor::codegen::stage_table(" + expression + ")";
    } else if (eigen_arrays_.count(name)) {
      view = "::rotor::codegen::adopt_matrix(" + expression + ")";
    } else if (stride != row_strides_.end()) {
      view = "::rotor::codegen::adopt_rows(" + expression + ", " +
             analysis::offset_text(stride->second, analysis::OffsetStyle::cpp) + ")";
    }
    const bool staged = tables_.count(name) != 0 ||
                        (pointer != pointer_tables_.end() && pointer->second.depth == 2);
    LoweredLoop::RowVector rv;
    rv.name = name;
    rv.view = view;
    rv.table = staged;
    rv.swapped = staged && pointer != pointer_tables_.end() && pointer->second.swapped;
    out_.row_vectors.push_back(rv);
  }
}

/// Removes container `name` from the model (its accesses and its array): the loop does not share
/// it.
void LoopLowering::forget_array(const std::string& name) {
  analysis::LoopModel& m = out_.model;
  m.accesses.erase(std::remove_if(m.accesses.begin(), m.accesses.end(),
                                  [&](const auto& a) { return a.array == name; }),
                   m.accesses.end());
  m.arrays.erase(std::remove_if(m.arrays.begin(), m.arrays.end(),
                                [&](const auto& a) { return a.name == name; }),
                 m.arrays.end());
}

} // namespace rotor::frontend::lowering
