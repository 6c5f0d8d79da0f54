// Loop shapes beyond a range-for over a variable: the index loop over a member vector of the
// loop's object (`for (int j = 0; j < this->v.size(); ++j)`, LoopSite.h).
#include "LoweringState.h"

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
