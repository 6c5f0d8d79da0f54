// `private(p)` on a `T* p` member of the loop's class (issue 16 item 3; docs/design/containers.md,
// "Private pointer arrays"): GibbsLDA++'s `double* p`, a probability vector its member helper
// fills `p[k] = ...` for every topic and then reads. A pointer says nothing of its length, so the
// lowering analyses `p` like any `T*` used as one array (LoweringPointerTables.cpp): the counter
// of a column loop `for (k = 0; k < K; ++k)` made in every iteration proves K elements, and every
// other index is checked at run time against K. Instead of binding it as a shared array, the
// rewriter then gives each worker its own K elements (codegen::PrivateArray, copied from the
// program's array on the worker's first use), which the body and the helpers cloned into the loop
// name by `p`; the shared array is left as it was before the loop. The user accepts per-worker
// state with the clause, so the loop is no longer equivalent to a serial order (--explain says
// so), as for any `private(...)` name.

#include "LoweringState.h"
#include "rotor/analysis/Format.h"

#include <algorithm>

namespace rotor::frontend::lowering {

/// True when `name` is a non-static data member of the loop's class of type `T*`, T arithmetic:
/// it becomes a private pointer array.
bool LoopLowering::private_member_table(const std::string& name) {
  const CXXMethodDecl* method = method_of(loop_.var->getDeclContext());
  if (method == nullptr) {
    return false;
  }
  for (const FieldDecl* field : method->getParent()->fields()) {
    const QualType type = field->getType();
    if (field->getName() == name && type->isPointerType() &&
        type->getPointeeType()->isArithmeticType() && !type->getPointeeType().isConstQualified()) {
      private_tables_.insert(name);
      return true;
    }
  }
  return false;
}

/// Is `array`'s name in the loop a per-worker object (a buffered container's buffer, a private
/// pointer array's copy), which the body and cloned helpers must name by its own name?
bool LoopLowering::per_worker_name(const std::string& array) const {
  return private_tables_.count(array) != 0 ||
         std::find(pragma_.buffered.begin(), pragma_.buffered.end(), array) !=
             pragma_.buffered.end();
}

/// The private pointer array `name` (named `expression` at the loop): a per-worker binding of
/// the length its accesses prove, with its unbounded indexes checked at run time; or an escape
/// that says why not (the loop stays serial). Its accesses leave the model either way: no worker
/// shares it.
void LoopLowering::bind_private_table(const std::string& name, const std::string& expression) {
  forget_array(name);
  const auto refuse = [&](const std::string& why, SourceLocation at) {
    escape(analysis::Escape::Kind::plain_container, "private(" + name + "): " + why, at,
           "name it '" + name +
               "[k]' inside 'for (int k = 0; k < K; ++k)' in every iteration, by "
               "its own name, in the loop body or in a member function the body calls");
  };
  if (const auto indirect = indirect_namings_.find(name); indirect != indirect_namings_.end()) {
    return refuse("'" + name + "' is used " + indirect->second.first +
                      "; each worker's copy is what the loop body itself names '" + name + "'",
                  indirect->second.second);
  }
  const PointerTable& table = pointer_tables_[name];
  if (table.depth != 1 || !table.flat || row_strides_.count(name) != 0) {
    return refuse("'" + name + "' is not indexed as one array ('" + name +
                      "[k]' in a column loop, any other index checked at run time)",
                  pragma_.hash);
  }
  if (!table.unbounded.empty()) {
    return refuse(table.unbounded, table.unbounded_at);
  }
  Sym row0; // the one row of an array indexed as one (flat_pointer_access)
  row0.kind = Subscript::Kind::constant;
  row0.offset.value = 0;
  if (!table.has_length || !table.proves_whole(row0, table.length)) {
    return refuse("no access made in every iteration proves its length ('" + name +
                      "[k]' inside 'for (k = 0; k < K; ++k)')",
                  pragma_.hash);
  }
  for (const PointerRow& c : table.conditional) {
    if (!offset_at_most(c.reach, table.length)) {
      return refuse("'" + c.text +
                        "' is not made in every iteration and reaches past the length an access "
                        "made in every iteration proves",
                    c.at);
    }
  }
  if (const auto refusal = why_columns_unchecked(table, table.length)) {
    return refuse(refusal->first, refusal->second);
  }
  emit_column_checks(name, table, table.length);
  out_.privates.push_back(
      {name, false, analysis::offset_text(table.length, analysis::OffsetStyle::cpp), expression});
}

} // namespace rotor::frontend::lowering
