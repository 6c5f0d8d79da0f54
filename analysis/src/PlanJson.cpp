// The contract's --explain=json loop object. nlohmann::ordered_json stays inside this file.

#include "rotor/analysis/Plan.h"

#include <nlohmann/json.hpp>

namespace rotor::analysis {
namespace {

nlohmann::ordered_json offset_json(const Offset& o) {
  if (o.is_numeric()) {
    return o.value;
  }
  std::string s = o.symbol;
  if (o.value != 0) {
    s += (o.value > 0 ? "+" : "") + std::to_string(o.value);
  }
  return s;
}

} // namespace

std::string plan_to_json(const LoopModel& model, const Plan& plan) {
  nlohmann::ordered_json plan_obj = {{"kind", to_string(plan.kind)}, {"fields", plan.fields}};
  if (plan.kind == PlanKind::unimodular) {
    plan_obj["matrix"] = plan.matrix;
    plan_obj["base"] = to_string(plan.base);
  }
  if (!plan.buffered.empty()) {
    plan_obj["buffered"] = plan.buffered;
  }
  if (plan.kind == PlanKind::serial) {
    plan_obj["reason"] = plan.reason;
    if (plan.blocking) {
      plan_obj["blocking"] = {{"file", plan.blocking->file}, {"line", plan.blocking->line}};
    }
  }

  nlohmann::ordered_json arrays = nlohmann::ordered_json::array();
  for (const ArrayPlan& a : plan.arrays) {
    nlohmann::ordered_json dims = nlohmann::ordered_json::array();
    for (const DimFootprint& d : a.dims) {
      if (d.field < 0 || static_cast<std::size_t>(d.field) >= model.fields.size()) {
        dims.push_back({{"field", nullptr}});
      } else {
        dims.push_back({{"field", model.fields[static_cast<std::size_t>(d.field)]},
                        {"lo", offset_json(d.lo)},
                        {"hi", offset_json(d.hi)}});
      }
    }
    nlohmann::ordered_json obj = {{"name", a.name}, {"role", to_string(a.role)}};
    if (!a.field.empty()) {
      obj["field"] = a.field;
    }
    obj["written"] = a.written;
    obj["dims"] = dims;
    obj["reason"] = a.reason;
    arrays.push_back(obj);
  }

  // Distinct vectors in order of first appearance (many access pairs give the same one).
  nlohmann::ordered_json deps = nlohmann::ordered_json::array();
  for (const Dependence& d : plan.dependences) {
    nlohmann::ordered_json v = nlohmann::ordered_json::array();
    for (const DepEntry& e : d.entries) {
      v.push_back(e.to_string());
    }
    if (std::find(deps.begin(), deps.end(), v) == deps.end()) {
      deps.push_back(v);
    }
  }

  nlohmann::ordered_json loop = {
      {"file", model.loc.file}, {"line", model.loc.line},        {"plan", plan_obj},
      {"arrays", arrays},       {"reductions", plan.reductions}, {"dependences", deps},
      {"notes", plan.notes}};
  if (!model.privates.empty()) { // absent when empty: older documents stay as they were
    nlohmann::ordered_json privates = nlohmann::ordered_json::array();
    for (const Private& v : model.privates) {
      privates.push_back({{"name", v.name}, {"origin", v.from_clause ? "clause" : "scratch"}});
    }
    loop["private"] = privates;
    loop["serial_equivalent"] = model.serial_equivalent();
  }
  return loop.dump(2);
}

} // namespace rotor::analysis
