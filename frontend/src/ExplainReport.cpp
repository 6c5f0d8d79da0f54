#include "ExplainReport.h"

#include "ExplainAdvice.h"

#include <algorithm>

namespace rotor::frontend::detail {
namespace {

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    out += (i ? ", " : "") + v[i];
  }
  return out;
}

std::string plan_line(const analysis::Plan& p) {
  std::string out = analysis::to_string(p.kind);
  if (!p.fields.empty()) {
    out += " by " + join(p.fields);
  }
  if (p.kind == analysis::PlanKind::unimodular) {
    out += " (skew";
    for (const auto& row : p.matrix) {
      out += " [";
      for (std::size_t i = 0; i < row.size(); ++i) {
        out += (i ? " " : "") + std::to_string(row[i]);
      }
      out += "]";
    }
    out += std::string(", then ") + analysis::to_string(p.base) + ")";
  }
  if (!p.buffered.empty()) {
    out += " (buffered: " + join(p.buffered) + ")";
  }
  return out;
}

std::string where(const analysis::SourceLoc& loc) {
  if (loc.line <= 0) {
    return {};
  }
  return loc.file + ":" + std::to_string(loc.line) +
         (loc.col > 0 ? ":" + std::to_string(loc.col) : "");
}

} // namespace

LoopReport make_report(const LoopResult& l, SourceCache& sources) {
  const analysis::LoopModel& m = l.model;
  const analysis::Plan& p = l.plan;
  LoopReport r;
  r.file = m.loc.file;
  r.line = m.loc.line;
  r.header = std::string("loop over ") +
             (m.space == analysis::SpaceKind::dataset ? "a Dataset" : "an IndexSpace") +
             " with key fields (" + join(m.fields) + ")" + (m.ordered ? ", ordered" : "") +
             (l.gpu ? ", device(gpu)" : "");
  r.plan = plan_line(p);
  r.sentence = plan_sentence(m, p);
  for (const analysis::ArrayPlan& a : p.arrays) {
    r.arrays.push_back({a.name, analysis::to_string(a.role), array_sentence(m, p, a)});
  }
  r.reductions = p.reductions;
  for (const analysis::Dependence& d : p.dependences) {
    const std::string s = d.array + " " + d.to_string();
    if (std::find(r.dependences.begin(), r.dependences.end(), s) == r.dependences.end()) {
      r.dependences.push_back(s);
    }
  }
  r.notes = p.notes;
  for (const Blocker& b : blockers(m, p)) {
    BlockerReport br;
    br.what = b.what;
    br.where = where(b.loc);
    br.line = b.loc.line;
    br.col = b.loc.col;
    if (b.loc.line > 0) {
      br.source_line = sources.line(b.loc.file.empty() ? m.loc.file : b.loc.file, b.loc.line);
    }
    r.blockers.push_back(std::move(br));
  }
  r.suggestions = suggestions(m, p);
  const std::vector<std::string>& all = sources.lines(m.loc.file);
  const auto [first, last] = loop_extent(all, m.loc.line);
  if (first > 0) {
    r.first_line = first;
    r.source.assign(all.begin() + first - 1, all.begin() + last);
  }
  return r;
}

} // namespace rotor::frontend::detail
