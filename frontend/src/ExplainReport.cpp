#include "ExplainReport.h"

#include "rotor/analysis/Advice.h"
#include "rotor/analysis/Format.h"

#include <algorithm>
#include <cctype>

namespace rotor::frontend::detail {
namespace {

using analysis::array_sentence;
using analysis::Blocker;
using analysis::blockers;
using analysis::plan_sentence;
using analysis::suggestions;

using analysis::join;

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

/// An IndexSpace loop iterates over points, not records: the same sentences with that word.
std::string for_space(const analysis::LoopModel& m, std::string text) {
  if (m.space != analysis::SpaceKind::index_space) {
    return text;
  }
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"records", "points"},
                                 std::pair<std::string, std::string>{"record", "point"}}) {
    for (std::size_t at = text.find(from); at != std::string::npos;
         at = text.find(from, at + to.size())) {
      const bool starts = at == 0 || !std::isalpha(static_cast<unsigned char>(text[at - 1]));
      const std::size_t end = at + from.size();
      const bool ends = end == text.size() || !std::isalpha(static_cast<unsigned char>(text[end]));
      if (starts && ends) {
        text.replace(at, from.size(), to);
      }
    }
  }
  return text;
}

} // namespace

LoopReport make_report(const LoopResult& l, SourceCache& sources) {
  const analysis::LoopModel& m = l.model;
  const analysis::Plan& p = l.plan;
  LoopReport r;
  r.file = m.loc.file;
  r.line = m.loc.line;
  const std::string space = !l.container.empty() ? "a " + l.container + " (keys inspected)"
                            : m.space == analysis::SpaceKind::dataset ? "a Dataset"
                                                                      : "an IndexSpace";
  r.header = "loop over " + space + " with key fields (" + join(m.fields) + ")" +
             (m.ordered ? ", ordered" : "") + (l.gpu ? ", device(gpu)" : "");
  r.plan = plan_line(p);
  r.sentence = for_space(m, plan_sentence(m, p));
  for (const analysis::ArrayPlan& a : p.arrays) {
    r.arrays.push_back(
        {a.name, analysis::to_string(a.role), for_space(m, array_sentence(m, p, a))});
  }
  r.reductions = p.reductions;
  for (const analysis::Dependence& d : p.dependences) {
    const std::string s = d.array + " " + d.to_string();
    if (std::find(r.dependences.begin(), r.dependences.end(), s) == r.dependences.end()) {
      r.dependences.push_back(s);
    }
  }
  r.notes = p.notes;
  r.notes.insert(r.notes.end(), l.imported_bodies.begin(), l.imported_bodies.end());
  r.notes.insert(r.notes.end(), l.checked_columns.begin(), l.checked_columns.end());
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
  for (const std::string& s : suggestions(m, p)) {
    r.suggestions.push_back(for_space(m, s));
  }
  const std::vector<std::string>& all = sources.lines(m.loc.file);
  const auto [first, last] = loop_extent(all, m.loc.line);
  if (first > 0) {
    r.first_line = first;
    r.source.assign(all.begin() + first - 1, all.begin() + last);
  }
  return r;
}

} // namespace rotor::frontend::detail
