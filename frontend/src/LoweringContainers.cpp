// Plain containers as parameter arrays (docs/design/containers.md): a std::vector the loop
// indexes as rows, `v[key * stride + j]` with `stride` loop-invariant and `j` provably in
// [0, stride), is modelled as a 2-D array (rows, stride) whose first subscript is `key` and
// whose second is the whole row. Every other use of such a vector (resize, data(), a copy, a
// reference to it) blocks the loop when the loop writes the vector; a vector the loop only reads
// stays an ordinary outside read.

#include "LoweringState.h"
#include "RotorTypes.h"
#include "rotor/analysis/Format.h"

#include <algorithm>

namespace rotor::frontend::lowering {

namespace {

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

bool is_declref_to(const Expr* e, const ValueDecl* d) {
  const auto* dre = dyn_cast_or_null<DeclRefExpr>(e);
  return dre != nullptr && dre->getDecl() == d;
}

/// `++j`, `j++` or `j += 1`.
bool steps_by_one(const Expr* inc, const ValueDecl* j, const ASTContext& ctx) {
  if (inc == nullptr) {
    return false;
  }
  inc = inc->IgnoreParens();
  if (const auto* uo = dyn_cast<UnaryOperator>(inc)) {
    return uo->isIncrementOp() && is_declref_to(uo->getSubExpr()->IgnoreParenImpCasts(), j);
  }
  if (const auto* bo = dyn_cast<CompoundAssignOperator>(inc)) {
    Expr::EvalResult r;
    return bo->getOpcode() == BO_AddAssign && is_declref_to(bo->getLHS()->IgnoreParens(), j) &&
           bo->getRHS()->EvaluateAsInt(r, ctx) && r.Val.getInt() == 1;
  }
  return false;
}

/// True when some statement under `s` may change `j` (a write, `&j`, a non-const reference).
bool writes_variable(const Stmt* s, const ValueDecl* j) {
  if (s == nullptr) {
    return false;
  }
  if (const auto* uo = dyn_cast<UnaryOperator>(s)) {
    if ((uo->isIncrementDecrementOp() || uo->getOpcode() == UO_AddrOf) &&
        is_declref_to(uo->getSubExpr()->IgnoreParenImpCasts(), j)) {
      return true;
    }
  }
  if (const auto* bo = dyn_cast<BinaryOperator>(s);
      bo != nullptr && bo->isAssignmentOp() && is_declref_to(bo->getLHS()->IgnoreParens(), j)) {
    return true;
  }
  if (const auto* call = dyn_cast<CallExpr>(s)) {
    for (const Expr* arg : call->arguments()) {
      if (is_declref_to(arg->IgnoreParens(), j) && arg->isLValue()) {
        return true; // bound to a reference parameter
      }
    }
  }
  if (const auto* vd = dyn_cast<DeclStmt>(s)) {
    for (const Decl* d : vd->decls()) {
      const auto* var = dyn_cast<VarDecl>(d);
      if (var != nullptr && var->getType()->isReferenceType() && var->getInit() != nullptr &&
          is_declref_to(var->getInit()->IgnoreParens(), j)) {
        return true;
      }
    }
  }
  for (const Stmt* child : s->children()) {
    if (writes_variable(child, j)) {
      return true;
    }
  }
  return false;
}

std::string describe_use(const std::string& name, const std::string& what) {
  return "'" + name + "' (a std::vector) is used other than by subscript or size() (" + what + ")";
}

} // namespace

/// A std::vector variable visible at the loop (a global, or a local or parameter of a function
/// around the loop, captures included): the array named after it.
Target LoopLowering::row_vector_variable(const VarDecl* vd) const {
  const std::string element = row_vector_element(ctx_, vd->getType());
  if (element.empty()) {
    return {};
  }
  bool visible = false;
  if (vd->hasGlobalStorage() && !vd->isStaticLocal()) {
    visible = vd->getDeclContext()->getRedeclContext()->isTranslationUnit();
  } else if (const auto* fn = dyn_cast_or_null<FunctionDecl>(vd->getParentFunctionOrMethod());
             fn != nullptr && fn->getBody() != nullptr) {
    const SourceRange body = fn->getBody()->getSourceRange();
    const SourceLocation at = sm_.getExpansionLoc(loop_.getForLoc());
    visible = !sm_.isBeforeInTranslationUnit(at, sm_.getExpansionLoc(body.getBegin())) &&
              !sm_.isBeforeInTranslationUnit(sm_.getExpansionLoc(body.getEnd()), at);
  }
  if (!visible) {
    return {};
  }
  Target t;
  t.kind = Target::array_k;
  t.array = vd->getNameAsString();
  t.expression = t.array;
  t.decl = vd;
  t.rank = 2;
  t.element = element;
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

/// A std::vector member of the loop's own object: the array named after the member.
Target LoopLowering::row_vector_member(const MemberExpr* me, const FieldDecl* fd, Frame& f) const {
  const std::string element = row_vector_element(ctx_, fd->getType());
  if (element.empty() || !names_loop_object(me->getBase(), f)) {
    return {};
  }
  Target t;
  t.kind = Target::array_k;
  t.array = fd->getNameAsString();
  t.expression = "this->" + t.array;
  t.decl = fd;
  t.rank = 2;
  t.element = element;
  t.row_vector = true;
  return t;
}

void LoopLowering::misused_container(const Target& t, const std::string& how, SourceLocation at) {
  container_misuse_.emplace(t.array, std::make_pair(how, at));
}

void LoopLowering::on_row_vector_use(const Expr* use, const Stmt* parent, const Target& t,
                                     Frame& f) {
  note_array(t);
  row_expressions_.emplace(t.array, t.expression);
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
    if (name == "size" || name == "empty") {
      return;
    }
    const auto* call = dyn_cast_or_null<CXXMemberCallExpr>(f.parents->getParent(me));
    const auto* md = call != nullptr ? call->getMethodDecl() : nullptr;
    misused_container(t, describe_use(t.array, text_of(call ? static_cast<const Expr*>(call) : me)),
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
  misused_container(t, describe_use(t.array, text_of(use)), use->getBeginLoc());
  add_access(t, u.use != Use::read && u.use != Use::alias_init, {}, use);
}

/// The subscripts of `v[index]` in the (rows, stride) model: {row, whole} when `index` is
/// `row * stride + column` with `column` in [0, stride) and the same stride as the vector's other
/// subscripts; {unknown, whole} otherwise (the loop then stays serial, naming `index`).
std::vector<Subscript> LoopLowering::row_vector_subscripts(const Expr* index, const Target& t,
                                                           Frame& f) {
  const std::string text = text_of(index);
  Sym row;
  Offset stride;
  if (!split_row_index(index, f, row, stride)) {
    return {Subscript::unknown(text), Subscript::whole(text)};
  }
  const auto [it, first] = row_strides_.emplace(t.array, stride);
  if (!first && it->second != stride) {
    return {Subscript::unknown(text), Subscript::whole(text)};
  }
  return {to_subscript(row, text), Subscript::whole(text)};
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
      if (rs.kind == Subscript::Kind::unknown || ss.kind != Subscript::Kind::constant ||
          ss.offset.symbol.find('@') != std::string::npos) {
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
/// or the induction variable of an enclosing `for (j = c; j < stride; ++j)` (c >= 0) that
/// nothing else in that loop changes.
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
  const auto* dre = dyn_cast<DeclRefExpr>(c);
  if (dre == nullptr) {
    return false;
  }
  const auto* j = dyn_cast<VarDecl>(dre->getDecl());
  const auto loop = induction_loops_.find(j);
  if (j == nullptr || loop == induction_loops_.end() || !f.parents->hasParent(loop->second)) {
    return false;
  }
  const ForStmt* fs = loop->second;
  Expr::EvalResult start;
  if (j->getInit() == nullptr || !j->getInit()->EvaluateAsInt(start, ctx_) ||
      start.Val.getInt().isNegative()) {
    return false;
  }
  const auto* cond = dyn_cast_or_null<BinaryOperator>(fs->getCond());
  if (cond == nullptr || cond->getOpcode() != BO_LT ||
      !is_declref_to(strip_value_preserving(cond->getLHS(), ctx_), j)) {
    return false;
  }
  const Sym bound = eval(cond->getRHS(), f);
  if (bound.kind != Subscript::Kind::constant || bound.offset != stride) {
    return false;
  }
  return steps_by_one(fs->getInc(), j, ctx_) && !writes_variable(fs->getBody(), j) &&
         !writes_variable(fs->getCond(), j);
}

/// After the walk: a vector the loop only reads leaves the model (an outside read, as before);
/// a written one is a parameter array when every use was a subscript or size query and it is
/// not buffered, else its first other use blocks the loop.
void LoopLowering::settle_containers() {
  auto& m = out_.model;
  for (const auto& [name, expression] : row_expressions_) {
    const bool written = std::any_of(m.accesses.begin(), m.accesses.end(),
                                     [&](const auto& a) { return a.array == name && a.write; });
    if (!written) {
      m.accesses.erase(std::remove_if(m.accesses.begin(), m.accesses.end(),
                                      [&](const auto& a) { return a.array == name; }),
                       m.accesses.end());
      m.arrays.erase(std::remove_if(m.arrays.begin(), m.arrays.end(),
                                    [&](const auto& a) { return a.name == name; }),
                     m.arrays.end());
      continue;
    }
    if (const auto misuse = container_misuse_.find(name); misuse != container_misuse_.end()) {
      escape(analysis::Escape::Kind::outside_write, misuse->second.first, misuse->second.second,
             "use '" + name +
                 "' only through subscripts v[key * stride + j] (0 <= j < stride) and size() "
                 "in the loop, or make it a rotor::DistArray");
    }
    if (std::find(m.buffered.begin(), m.buffered.end(), name) != m.buffered.end()) {
      escape(analysis::Escape::Kind::outside_write,
             "buffered(" + name + "): '" + name + "' is a std::vector", pragma_.hash,
             "buffered(...) needs a rotor::DistArray");
    }
    const auto stride = row_strides_.find(name);
    out_.row_vectors.push_back(
        {name, expression,
         stride == row_strides_.end()
             ? std::string()
             : analysis::offset_text(stride->second, analysis::OffsetStyle::cpp)});
  }
}

} // namespace rotor::frontend::lowering
