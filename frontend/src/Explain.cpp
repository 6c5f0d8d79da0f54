#include "rotor/frontend/Explain.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>

namespace rotor::frontend {

std::string explain_json(const std::vector<LoopResult>& loops) {
  nlohmann::ordered_json doc = {{"loops", nlohmann::ordered_json::array()}};
  for (const LoopResult& l : loops) {
    nlohmann::ordered_json loop =
        nlohmann::ordered_json::parse(analysis::plan_to_json(l.model, l.plan));
    if (l.gpu) {
      loop["device"] = "gpu";
    }
    doc["loops"].push_back(std::move(loop));
  }
  return doc.dump(2) + "\n";
}

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    out += (i ? ", " : "") + v[i];
  }
  return out;
}

} // namespace

std::string explain_text(const std::vector<LoopResult>& loops) {
  std::ostringstream os;
  if (loops.empty()) {
    os << "no '#pragma rotor parallel_for' loops\n";
  }
  for (const LoopResult& l : loops) {
    const analysis::LoopModel& m = l.model;
    const analysis::Plan& p = l.plan;
    os << m.loc.file << ":" << m.loc.line << ": loop over "
       << (m.space == analysis::SpaceKind::dataset ? "a Dataset" : "an IndexSpace")
       << " with key fields (" << join(m.fields) << ")" << (m.ordered ? ", ordered" : "")
       << (l.gpu ? ", device(gpu)" : "") << "\n";
    os << "  plan: " << analysis::to_string(p.kind);
    if (!p.fields.empty()) {
      os << " by " << join(p.fields);
    }
    if (p.kind == analysis::PlanKind::unimodular) {
      os << " (skew";
      for (const auto& row : p.matrix) {
        os << " [";
        for (std::size_t i = 0; i < row.size(); ++i) {
          os << (i ? " " : "") << row[i];
        }
        os << "]";
      }
      os << ", then " << analysis::to_string(p.base) << ")";
    }
    if (!p.buffered.empty()) {
      os << " (buffered: " << join(p.buffered) << ")";
    }
    if (p.kind == analysis::PlanKind::serial) {
      os << "\n  why serial: " << p.reason;
      if (p.blocking) {
        os << " (" << p.blocking->file << ":" << p.blocking->line << ")";
      }
    }
    os << "\n";
    for (const analysis::ArrayPlan& a : p.arrays) {
      os << "  " << a.name << ": " << analysis::to_string(a.role);
      if (!a.field.empty()) {
        os << " by " << a.field;
      }
      os << (a.written ? ", written" : ", read only");
      if (!a.reason.empty()) {
        os << " -- " << a.reason;
      }
      os << "\n";
    }
    if (!p.reductions.empty()) {
      os << "  reductions: " << join(p.reductions) << "\n";
    }
    if (!p.dependences.empty()) {
      std::vector<std::string> deps;
      for (const analysis::Dependence& d : p.dependences) {
        const std::string s = d.array + " " + d.to_string();
        if (std::find(deps.begin(), deps.end(), s) == deps.end()) {
          deps.push_back(s);
        }
      }
      os << "  dependences: " << join(deps) << "\n";
    }
    for (const std::string& n : p.notes) {
      os << "  note: " << n << "\n";
    }
  }
  return os.str();
}

} // namespace rotor::frontend
