// buffered(...) on plain containers (docs/design/containers.md, "Buffered containers"): a
// std::vector, a std::array or a T* table listed in buffered(...) is bound like any written
// container (a DistArray view of its memory), and the plan gives each worker its own buffer of
// that view. The body's name of the container then stands for the worker's buffer
// (codegen::BufferedElements), so every use must be that name: `this->w`, `::w` or an alias
// would reach the shared container instead, and blocks the loop. A member helper the body calls
// may name it too: the rewriter clones the helper into the body lambda after the buffer's local
// (HelperClones.h, docs/design/helper-clones.md), where the helper's rules allow. Tables of rows
// (std::vector<std::vector<T>>, T**) and Eigen matrices cannot be buffered: they stay serial with a
// message that says so.

#include "HelperClones.h"
#include "LoweringState.h"

#include "KnownCallees.h"
#include "rotor/analysis/Format.h"

#include <algorithm>
#include <optional>

namespace rotor::frontend::lowering {

/// Records the first use of container `t` that is not its own name in the loop body: a use in a
/// helper or lambda the body calls (for a buffered container, unless the helper can be cloned:
/// then the helper becomes a clone candidate), an explicit `this->w`, a qualified `::w`, or a
/// reference or pointer that aliases it.
void LoopLowering::note_container_naming(const Expr* use, const Target& t, const Frame& f) {
  if (indirect_namings_.count(t.array) != 0) {
    return;
  }
  const Expr* bare_use = use->IgnoreParenImpCasts();
  std::string how;
  const bool buffered = per_worker_name(t.array);
  if (&f != body_frame_ && !buffered) {
    how = "in '" + (f.fn != nullptr ? f.fn->getNameAsString() : std::string("a lambda")) +
          "', which the loop calls";
  } else if (&f != body_frame_) {
    const std::optional<std::string> no_clone = clone_refusal(bare_use, t, f);
    if (!no_clone) {
      auto& helpers = clone_candidates_[t.array];
      if (std::find(helpers.begin(), helpers.end(), f.fn) == helpers.end()) {
        helpers.push_back(f.fn);
      }
      return;
    }
    how = "in '" + (f.fn != nullptr ? f.fn->getNameAsString() : std::string("a lambda")) +
          "', which the loop calls (" + text_of(use) + "), and Rotor cannot clone it into the " +
          "loop: " + *no_clone;
    indirect_namings_.emplace(t.array, std::make_pair(how, use->getBeginLoc()));
    return;
  } else if (const auto* me = dyn_cast<MemberExpr>(bare_use)) {
    if (!me->isImplicitAccess()) {
      how = "through an explicit object";
    }
  } else if (const auto* dre = dyn_cast<DeclRefExpr>(bare_use)) {
    if (dre->hasQualifier()) {
      how = "by a qualified name";
    } else if (dre->getDecl() != t.decl) {
      how = "through '" + dre->getDecl()->getNameAsString() + "', another name for it";
    }
  } else {
    how = "through an expression";
  }
  if (!how.empty()) {
    indirect_namings_.emplace(t.array,
                              std::make_pair(how + " (" + text_of(use) + ")", use->getBeginLoc()));
  }
}

/// Why helper frame `f`'s use `bare_use` of container `t` cannot reach the worker's buffer through
/// a clone of the helper in the loop (docs/design/helper-clones.md); nothing when it can, as far as
/// the helper's shape and the call tell (settle_helper_clones judges the names).
std::optional<std::string> LoopLowering::clone_refusal(const Expr* bare_use, const Target& t,
                                                       const Frame& f) const {
  if (f.fn == nullptr) {
    return std::string("it is not a function");
  }
  const std::string name = "'" + f.fn->getNameAsString() + "'";
  if (f.caller != body_frame_) {
    return name + " is reached through another function (only the helpers the loop body calls "
                  "itself are cloned)";
  }
  if (pragma_.gpu) {
    return std::string("the loop runs on the device");
  }
  const auto* me = dyn_cast<MemberExpr>(bare_use);
  const auto* dre = dyn_cast<DeclRefExpr>(bare_use);
  const bool own_name = (me != nullptr && me->isImplicitAccess() && !me->hasQualifier() &&
                         me->getMemberDecl() == t.decl) ||
                        (dre != nullptr && !dre->hasQualifier() && dre->getDecl() == t.decl);
  if (t.decl == nullptr || !own_name) {
    return name + " names it other than by its own name";
  }
  return clone_shape_refusal(ctx_, f.fn, f.call, enclosing_method_);
}

/// The names the rewriter declares in the body lambda before the clones: the loop's variables,
/// per-worker copies, reductions, and the arrays and staged tables bound under their own name.
std::set<std::string> LoopLowering::names_bound_at_loop() const {
  std::set<std::string> names;
  for (const std::string& p : pragma_.privates) {
    if (libc_privates_.count(p) == 0) { // libc's generators: calls rewritten, no local
      names.insert(p);
    }
  }
  if (loop_var_ != nullptr) {
    names.insert(loop_var_->getNameAsString());
  }
  names.insert(out_.ragged_index);
  names.insert(out_.bindings.begin(), out_.bindings.end());
  for (const ValueDecl* p : privates_) {
    names.insert(p->getNameAsString());
  }
  for (const VarDecl* r : reduction_order_) {
    names.insert(r->getNameAsString());
  }
  for (const analysis::ArrayDecl& a : out_.model.arrays) {
    if (row_expressions_.count(a.name) == 0 || tables_.count(a.name) != 0) {
      names.insert(a.name);
    }
  }
  return names;
}

/// Judges the names each candidate clone looks up at the loop (clone_name_refusal): a refused
/// helper blocks buffering the containers it uses; the others become LoweredLoop::clones.
void LoopLowering::settle_helper_clones() {
  if (clone_candidates_.empty()) {
    return;
  }
  const FunctionDecl* loop_function = enclosing_method_;
  std::set<std::string> at_loop = names_bound_at_loop();
  for (const auto& [name, helpers] : clone_candidates_) {
    for (const FunctionDecl* h : helpers) {
      at_loop.insert(h->getNameAsString()); // a clone must not call another clone
    }
  }
  std::set<std::string> shadows; // the containers whose helper uses are by their own name
  for (const auto& [name, helpers] : clone_candidates_) {
    shadows.insert(name);
  }
  std::map<const FunctionDecl*, std::optional<std::string>> verdicts;
  for (const auto& [name, helpers] : clone_candidates_) {
    for (const FunctionDecl* h : helpers) {
      if (verdicts.count(h) == 0) {
        verdicts[h] = clone_name_refusal(ctx_, h, loop_function, at_loop, shadows);
      }
      if (const auto& no = verdicts[h]) {
        indirect_namings_.emplace(name, std::make_pair("in '" + h->getNameAsString() +
                                                           "', which the loop calls, and Rotor "
                                                           "cannot clone it into the loop: " +
                                                           *no,
                                                       h->getLocation()));
      } else if (std::find(out_.clones.begin(), out_.clones.end(), h) == out_.clones.end()) {
        out_.clones.push_back(h);
      }
    }
  }
}

/// Why buffered(...) cannot name the written container `name` (with where to point and the fix),
/// or nothing when it can.
std::optional<LoopLowering::Refusal> LoopLowering::why_not_buffered(const std::string& name) const {
  const std::string flat_fix =
      "make it one flat std::vector<T> indexed v[row * K + j], or a rotor::DistArray";
  const auto cannot = [&](const std::string& kind) {
    return Refusal{"'" + name + "' is " + kind + ", which Rotor cannot buffer", pragma_.hash,
                   flat_fix};
  };
  const auto pointer = pointer_tables_.find(name);
  if (tables_.count(name) != 0) {
    return cannot("a std::vector<std::vector>");
  }
  if (eigen_arrays_.count(name) != 0) {
    return cannot("an Eigen::Matrix");
  }
  if (pointer != pointer_tables_.end() && pointer->second.depth != 1) {
    return cannot("a T** table");
  }
  if (const auto indirect = indirect_namings_.find(name); indirect != indirect_namings_.end()) {
    return Refusal{"'" + name + "' is used " + indirect->second.first +
                       "; each worker's buffer is what the loop body itself names '" + name + "'",
                   indirect->second.second,
                   "use '" + name + "' only in the loop body, by its own name (" + name + "[i], " +
                       name + ".size())"};
  }
  return std::nullopt;
}

/// `buffered(name)` on the written plain container `name` (named `expression` at the loop): fills
/// `rv` (its view and size) when each worker can get its own buffer of it; else records why not
/// (the loop stays serial) and leaves the view empty.
void LoopLowering::buffered_container(const std::string& name, const std::string& expression,
                                      LoweredLoop::RowVector& rv) {
  if (const std::optional<Refusal> no = why_not_buffered(name)) {
    escape(analysis::Escape::Kind::plain_container, "buffered(" + name + "): " + no->why, no->at,
           no->fix);
    return;
  }
  if (container_misuse_.count(name) != 0) {
    return; // settle_containers recorded the use that blocks
  }
  rv.buffered = true;
  if (pointer_tables_.count(name) != 0) {
    rv.view = pointer_table_view(name, expression); // empty, with an escape, when unbounded
    rv.size = "static_cast<std::size_t>(rotor_view_" + name + ".size())";
    return;
  }
  // Rows of the container's one stride when every subscript is such a row (a sparse buffer then
  // holds the rows a worker touches), else rows of one element: any subscript below size().
  const auto stride = row_strides_.find(name);
  const std::string row_length =
      stride != row_strides_.end() && irregular_rows_.count(name) == 0
          ? analysis::offset_text(stride->second, analysis::OffsetStyle::cpp)
          : "1";
  rv.view = "::rotor::codegen::adopt_rows(" + expression + ", " + row_length + ")";
  rv.size = expression + ".size()";
}

namespace {

/// The first variable or member named `name` in `s` (a use in the loop body), or nullptr.
const ValueDecl* named_decl(const Stmt* s, const std::string& name) {
  if (s == nullptr) {
    return nullptr;
  }
  if (const auto* dre = dyn_cast<DeclRefExpr>(s);
      dre != nullptr && dre->getDecl()->getName() == name) {
    return dre->getDecl();
  }
  if (const auto* me = dyn_cast<MemberExpr>(s);
      me != nullptr && me->getMemberDecl()->getName() == name) {
    return me->getMemberDecl();
  }
  for (const Stmt* child : s->children()) {
    if (const ValueDecl* d = named_decl(child, name)) {
      return d;
    }
  }
  return nullptr;
}

} // namespace

/// The warning for `buffered(name)` where the model has no array `name`: what `name` is instead
/// (a std::map, a scalar, a container the loop only reads) and what to do.
std::string LoopLowering::unbuffered_name_message(const std::string& name) const {
  const std::string head = "buffered(" + name + "): ";
  const ValueDecl* d = named_decl(loop_.body, name);
  if (d == nullptr) {
    return head + "the loop uses no array named '" + name + "'";
  }
  const QualType type = d->getType().getNonReferenceType();
  const std::string spelled = type.getUnqualifiedType().getAsString(ctx_.getPrintingPolicy());
  const std::string canonical =
      type.getCanonicalType().getUnqualifiedType().getAsString(ctx_.getPrintingPolicy());
  for (const char* map :
       {"std::map", "std::unordered_map", "std::multimap", "std::set", "std::unordered_set"}) {
    if (canonical.rfind(std::string(map) + "<", 0) == 0) {
      return head + "'" + name + "' is a " + map +
             ", which Rotor cannot buffer (buffered(...) takes a rotor::DistArray, std::vector, "
             "std::array or T* table the loop writes); key it by a dense integer id in a "
             "std::vector or rotor::DistArray to buffer it";
    }
  }
  if (type->isArithmeticType()) {
    return head + "'" + name + "' is a scalar (" + spelled +
           "), which Rotor cannot buffer: one the loop only changes by += or -= is a reduction "
           "(no clause needed); for per-worker copies whose changes are summed when the loop "
           "ends, make it a one-element std::vector<" +
           spelled + "> (" + name + "[0]) and buffer that";
  }
  if (read_only_containers_.count(name) != 0) {
    return head + "the loop does not write '" + name + "': there is nothing to buffer";
  }
  if (const auto* spec =
          dyn_cast_or_null<ClassTemplateSpecializationDecl>(type->getAsCXXRecordDecl());
      spec != nullptr && owns_elements(type) && spec->getTemplateArgs().size() > 0 &&
      spec->getTemplateArgs()[0].getKind() == TemplateArgument::Type &&
      spec->getTemplateArgs()[0].getAsType()->isRecordType()) {
    return head + "'" + name + "' (a " + spelled +
           ") holds records, which Rotor cannot buffer (buffered(...) sums arithmetic "
           "elements); keep one std::vector of numbers per field the loop adds to and buffer "
           "those";
  }
  if (!container_target(type).element.empty()) {
    return head + "'" + name + "' (a " + spelled +
           ") is not a parameter array of this loop: Rotor sees plain containers that are "
           "locals or parameters of the function around the loop, members of its object, or "
           "globals outside any namespace";
  }
  return head + "the loop uses no array named '" + name + "' ('" + name + "' is a " + spelled + ")";
}

/// Inside the rewritten loop the body's names of the arrays it binds are the runtime's objects:
/// a lambda parameter (a DistArray, or a worker's sparse buffer), a local over a buffered
/// container or over staged table rows. Their type or size there is not the program's, so a
/// loop that takes one (`sizeof(arr) / sizeof(arr[0])` over a buffered std::array) stays serial
/// instead of silently counting something else.
void LoopLowering::block_unevaluated_arrays() {
  for (const auto& [name, at] : unevaluated_names(loop_.body)) {
    const bool bound = std::any_of(out_.model.arrays.begin(), out_.model.arrays.end(),
                                   [&](const analysis::ArrayDecl& a) { return a.name == name; });
    if (bound) {
      escape(analysis::Escape::Kind::plain_container,
             "the loop takes the type or size of '" + name +
                 "' (sizeof, alignof, typeid, noexcept or decltype), which inside the loop is "
                 "Rotor's binding of the array, of another type",
             at, "take the type or size outside the loop, into a variable the loop reads");
      return;
    }
  }
}

} // namespace rotor::frontend::lowering
