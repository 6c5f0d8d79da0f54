#include "rotor/analysis/PlanText.h"

#include "SerialReason.h"
#include "rotor/analysis/Format.h"

#include <sstream>

namespace rotor::analysis {
namespace {

std::string matrix_text(const std::vector<std::vector<std::int64_t>>& m) {
  std::vector<std::string> rows;
  for (const auto& row : m) {
    std::vector<std::string> cells;
    cells.reserve(row.size());
    for (std::int64_t v : row) {
      cells.push_back(std::to_string(v));
    }
    rows.push_back("[" + join(cells) + "]");
  }
  return "[" + join(rows) + "]";
}

std::string offset_words(const Offset& o) {
  if (o.symbol.empty()) {
    return (o.value >= 0 ? "+" : "") + std::to_string(o.value);
  }
  std::string s = o.symbol[0] == '-' ? o.symbol : "+" + o.symbol;
  if (o.value != 0) {
    s += (o.value > 0 ? "+" : "") + std::to_string(o.value);
  }
  return s;
}

std::string kind_line(const Plan& plan) {
  std::string out = to_string(plan.kind);
  if (plan.kind == PlanKind::unimodular) {
    out += " " + matrix_text(plan.matrix) + " over (" + join(plan.fields) + "), then " +
           to_string(plan.base);
  } else if (!plan.fields.empty()) {
    out += " over (" + join(plan.fields) + ")";
  }
  if (!plan.buffered.empty()) {
    out += ", buffered (" + join(plan.buffered) + ")";
  }
  return out;
}

std::string role_words(const ArrayPlan& a) {
  std::string out = to_string(a.role);
  if (!a.field.empty() && (a.role == ArrayRole::partitioned || a.role == ArrayRole::rotating ||
                           a.role == ArrayRole::local)) {
    out += " by " + a.field;
  }
  return out;
}

} // namespace

std::string footprint_text(const LoopModel& model, const std::vector<DimFootprint>& dims) {
  std::vector<std::string> parts;
  for (const DimFootprint& d : dims) {
    if (d.field < 0 || static_cast<std::size_t>(d.field) >= model.fields.size()) {
      parts.push_back(":");
      continue;
    }
    std::string s = model.fields[static_cast<std::size_t>(d.field)] + offset_words(d.lo);
    if (d.hi != d.lo) {
      s += ".." + offset_words(d.hi);
    }
    parts.push_back(s);
  }
  return "[" + join(parts) + "]";
}

std::string plan_summary(const LoopModel& model, const Plan& plan) {
  (void)model;
  std::string out = kind_line(plan);
  if (plan.kind == PlanKind::serial) {
    return out + ": " + plan.reason;
  }
  std::vector<std::string> roles;
  for (const ArrayPlan& a : plan.arrays) {
    if (a.role != ArrayRole::replicated) {
      roles.push_back(a.name + " " + role_words(a));
    }
  }
  return roles.empty() ? out : out + "; " + join(roles);
}

std::string plan_to_text(const LoopModel& model, const Plan& plan) {
  std::ostringstream out;
  std::string where = detail::loc_string(model.loc);
  out << "loop" << (where.empty() ? "" : " " + where) << ": "
      << (model.space == SpaceKind::dataset ? "dataset" : "index_space") << " over ("
      << join(model.fields) << ")" << (model.ordered ? ", ordered" : ", unordered");
  if (!model.buffered.empty()) {
    out << ", buffered (" << join(model.buffered) << ")";
  }
  out << "\n";
  out << "dependences:" << (plan.dependences.empty() ? " none" : "") << "\n";
  for (const Dependence& d : plan.dependences) {
    out << "  " << d.array << " " << d.to_string() << "  " << detail::access_words(model, d.source)
        << " -> "
        << (d.sink == d.source ? std::string("itself") : detail::access_words(model, d.sink))
        << "\n";
  }
  out << "plan: " << kind_line(plan) << "\n";
  if (plan.kind == PlanKind::serial) {
    out << "  reason: " << plan.reason << "\n";
    if (plan.blocking && !detail::loc_string(*plan.blocking).empty()) {
      out << "  blocking: " << detail::loc_string(*plan.blocking) << "\n";
    }
  }
  out << "arrays:" << (plan.arrays.empty() ? " none" : "") << "\n";
  for (const ArrayPlan& a : plan.arrays) {
    out << "  " << a.name << ": " << role_words(a) << ", " << (a.written ? "written" : "read")
        << ", footprint " << footprint_text(model, a.dims) << " (" << a.reason << ")\n";
  }
  out << "reductions:" << (plan.reductions.empty() ? " none" : " " + join(plan.reductions)) << "\n";
  for (const std::string& n : plan.notes) {
    out << "note: " << n << "\n";
  }
  return out.str();
}

} // namespace rotor::analysis
