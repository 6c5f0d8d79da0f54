// plan_loop: escapes and invalid models first, then buffered arrays aside, then the candidates of
// PlanSearch in order; the first whose schedule is legal and whose arrays all get a role wins.

#include "ArrayRoles.h"
#include "PlanSearch.h"
#include "SerialReason.h"

#include <algorithm>

namespace rotor::analysis {
namespace {

using detail::SearchDependence;

/// Roles when the loop runs on one worker: nothing moves; written arrays are local to it.
std::vector<ArrayPlan> serial_roles(const LoopModel& model) {
  std::vector<ArrayPlan> out;
  for (const ArrayDecl& decl : model.arrays) {
    ArrayPlan ap;
    ap.name = decl.name;
    ap.dims = detail::footprint(model, decl.name);
    ap.written = std::any_of(model.accesses.begin(), model.accesses.end(),
                             [&](const Access& a) { return a.array == decl.name && a.write; });
    ap.role = ap.written ? ArrayRole::local : ArrayRole::replicated;
    ap.reason = ap.written ? "the loop runs on one worker" : "only read";
    out.push_back(std::move(ap));
  }
  return out;
}

Plan serial(const LoopModel& model, Plan plan, std::string reason, std::optional<SourceLoc> at) {
  plan.kind = PlanKind::serial;
  plan.fields.clear();
  plan.matrix.clear();
  plan.buffered.clear();
  plan.reason = std::move(reason);
  plan.blocking = std::move(at);
  plan.arrays = serial_roles(model);
  return plan;
}

/// What a per-worker copy is, for --explain (libc generators are described by the caller).
std::string private_note(const Private& v) {
  const std::string name = "'" + v.name + "'";
  if (!v.from_clause && v.scalar) {
    return name + " is a per-iteration temporary: every iteration assigns it before reading it "
                  "and no code outside the loop names it, so each worker gets its own copy";
  }
  if (!v.from_clause) {
    return name + " is per-iteration scratch: every iteration writes all of it before reading "
                  "it and no code outside the loop names it, so each worker gets its own copy";
  }
  if (v.generator) {
    return name + " is private: each worker starts from a copy of the generator as it was before "
                  "the loop, re-seeded per worker (rotor/runtime/Private.h), and draws from it "
                  "record after record, so the loop is no longer equivalent to a serial order of "
                  "the records";
  }
  return name + " is private: each worker starts from a copy of its value before the loop and "
                "carries it from record to record (the variable outside keeps its value from "
                "before the loop), so the loop is no longer equivalent to a serial order of the "
                "records";
}

void add_notes(const LoopModel& model, const std::vector<SearchDependence>& deps, Plan& plan) {
  if (model.ordered && plan.kind != PlanKind::serial && plan.kind != PlanKind::independent &&
      plan.kind != PlanKind::data_parallel) {
    plan.notes.push_back("ordered: each block runs its records in ascending key order, and "
                         "blocks of later steps after those of earlier ones");
  }
  if (model.space == SpaceKind::dataset) {
    std::vector<std::string> named;
    for (const SearchDependence& d : deps) {
      const bool all_zero =
          std::all_of(d.exact.begin(), d.exact.end(), [](const auto& i) { return i.is_zero(); });
      const std::string& array = model.accesses[static_cast<std::size_t>(d.raw->source)].array;
      if (all_zero && std::find(named.begin(), named.end(), array) == named.end()) {
        named.push_back(array);
        plan.notes.push_back("records with equal keys conflict on '" + array +
                             "' (all-zero dependence): they always share a block");
      }
    }
  }
  if (plan.kind != PlanKind::serial) {
    for (const MemoryCheck& c : model.memory_checks) {
      plan.notes.push_back("'" + c.read + "' is read and may be the same container as '" +
                           c.written +
                           "', which the loop writes: their memory is compared when the loop "
                           "starts, and the loop runs serially when they overlap");
    }
  }
  for (const std::string& b : plan.buffered) {
    plan.notes.push_back("'" + b +
                         "' is buffered: its conflicting updates are merged, not ordered");
  }
  for (const Reduction& r : model.reductions) {
    plan.notes.push_back("'" + r.name + "' is a " + r.op +
                         " reduction: per-worker partials combined in worker order");
  }
  for (const Private& v : model.privates) {
    if (v.libc) {
      plan.notes.push_back("'" + v.name + "' is private: libc's " + v.name +
                           "() draws from a generator per worker, seeded from one draw of libc's "
                           "generator when the loop starts (rotor/runtime/Private.h), so the loop "
                           "is no longer equivalent to a serial order of the records");
      continue;
    }
    plan.notes.push_back(private_note(v));
  }
}

} // namespace

namespace {

/// Splits the raw dependences: those of buffered arrays are merged, not ordered (their arrays
/// are listed in `plan.buffered`); the rest constrain the plan.
std::vector<detail::RawDependence>
unbuffered(const LoopModel& model, const std::vector<detail::RawDependence>& raw, Plan& plan) {
  std::vector<detail::RawDependence> rest;
  for (const detail::RawDependence& d : raw) {
    const std::string& array = model.accesses[static_cast<std::size_t>(d.source)].array;
    if (!model.is_buffered(array)) {
      rest.push_back(d);
    } else if (std::find(plan.buffered.begin(), plan.buffered.end(), array) ==
               plan.buffered.end()) {
      plan.buffered.push_back(array);
    }
  }
  return rest;
}

/// The first legal candidate whose arrays all get a role, written into `plan`; false when none
/// is (`why_not`: the first reason a legal candidate's roles failed).
bool choose_candidate(const LoopModel& model, const std::vector<SearchDependence>& deps, Plan& plan,
                      std::string& why_not) {
  for (const detail::Candidate& c : detail::candidate_plans(model.fields.size(), model.ordered)) {
    if (!detail::legal(c, deps)) {
      continue;
    }
    std::string why;
    auto roles = detail::assign_roles(model, &c, deps, &why);
    if (!roles) {
      if (why_not.empty()) {
        why_not = why;
      }
      continue;
    }
    plan.kind = c.kind;
    for (int f : c.fields) {
      plan.fields.push_back(model.fields[static_cast<std::size_t>(f)]);
    }
    plan.matrix = c.matrix;
    if (c.kind == PlanKind::unimodular) {
      plan.base = c.schedule == detail::Schedule::one_d      ? PlanKind::one_d
                  : c.schedule == detail::Schedule::rotation ? PlanKind::rotation
                                                             : PlanKind::wavefront;
    }
    plan.arrays = std::move(*roles);
    return true;
  }
  return false;
}

/// An `ordered` loop that a rotation would have parallelised without the clause.
bool rotation_legal_unordered(const LoopModel& model, const std::vector<SearchDependence>& deps) {
  if (!model.ordered) {
    return false;
  }
  for (const auto& c : detail::candidate_plans(model.fields.size(), /*ordered=*/false)) {
    if (c.kind == PlanKind::rotation && detail::legal(c, deps)) {
      return true;
    }
  }
  return false;
}

/// The serial plan for dependences no candidate satisfies, blaming the blocking pair's write.
Plan blocked(const LoopModel& model, Plan plan, const std::vector<SearchDependence>& deps,
             const std::string& why_not) {
  const SearchDependence& blocking = detail::blocking_dependence(deps);
  std::string reason = why_not.empty() ? detail::dependence_reason(model, blocking) : why_not;
  const Access& src = model.accesses[static_cast<std::size_t>(blocking.raw->source)];
  const SourceLoc at =
      src.write ? src.loc : model.accesses[static_cast<std::size_t>(blocking.raw->sink)].loc;
  plan = serial(model, std::move(plan), std::move(reason), at);
  if (rotation_legal_unordered(model, deps)) {
    plan.notes.push_back("a rotation would be legal, but the loop is `ordered`");
  }
  return plan;
}

} // namespace

Plan plan_loop(const LoopModel& model) {
  Plan plan;
  for (const Reduction& r : model.reductions) {
    plan.reductions.push_back(r.name);
  }
  const std::vector<std::string> problems = validate_loop_model(model);
  if (!problems.empty()) {
    return serial(model, std::move(plan), "invalid loop model: " + problems.front(), model.loc);
  }
  plan.dependences = dependence_vectors(model);
  if (!model.escapes.empty()) {
    const Escape& e = model.escapes.front();
    return serial(model, std::move(plan), "the loop body has " + detail::escape_words(e), e.loc);
  }
  const std::vector<detail::RawDependence> raw = detail::raw_dependences(model);
  const std::vector<detail::RawDependence> rest = unbuffered(model, raw, plan);
  const std::vector<SearchDependence> deps = detail::search_view(rest); // points into `rest`
  const std::vector<SearchDependence> all_deps = detail::search_view(raw);
  std::string why_not;
  if (deps.empty()) {
    plan.kind = plan.buffered.empty() ? PlanKind::independent : PlanKind::data_parallel;
    plan.arrays = *detail::assign_roles(model, nullptr, deps, &why_not); // no dependence left
  } else if (!choose_candidate(model, deps, plan, why_not)) {
    plan = blocked(model, std::move(plan), deps, why_not);
  }
  add_notes(model, all_deps, plan);
  return plan;
}

} // namespace rotor::analysis
