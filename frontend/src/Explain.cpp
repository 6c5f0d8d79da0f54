#include "rotor/frontend/Explain.h"

#include "ExplainReport.h"
#include "rotor/analysis/Format.h"

#include <nlohmann/json.hpp>

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
    if (!l.container.empty()) {
      loop["container"] = l.container;
    }
    if (!l.imported_bodies.empty()) {
      loop["bodies_read_elsewhere"] = l.imported_bodies;
    }
    if (!l.checked_columns.empty()) {
      loop["columns_checked_at_run_time"] = l.checked_columns;
    }
    doc["loops"].push_back(std::move(loop));
  }
  return doc.dump(2) + "\n";
}

std::string explain_text(const std::vector<LoopResult>& loops) {
  std::ostringstream os;
  if (loops.empty()) {
    os << "no '#pragma rotor parallel_for' loops\n";
  }
  detail::SourceCache sources;
  for (const LoopResult& l : loops) {
    const detail::LoopReport r = detail::make_report(l, sources);
    os << r.file << ":" << r.line << ": " << r.header << "\n";
    os << "  plan: " << r.sentence << "\n";
    for (const detail::BlockerReport& b : r.blockers) {
      os << "  blocked by: " << b.what << "\n";
      if (!b.source_line.empty() && b.where.rfind(r.file + ":", 0) != 0) {
        os << "    in " << b.where << "\n"; // another file: a header, a body read elsewhere
      }
      if (!b.source_line.empty()) {
        os << detail::snippet(b.source_line, b.line, b.col);
      } else if (!b.where.empty()) {
        os << "    at " << b.where << "\n";
      }
    }
    if (!r.arrays.empty()) {
      os << "  arrays:\n";
    }
    for (const detail::ArrayReport& a : r.arrays) {
      os << "    " << a.sentence << "\n";
    }
    if (!r.reductions.empty()) {
      os << "  reductions: " << analysis::join(r.reductions) << "\n";
    }
    if (!r.dependences.empty()) {
      os << "  dependences: " << analysis::join(r.dependences) << "\n";
    }
    for (const std::string& n : r.notes) {
      os << "  note: " << n << "\n";
    }
    for (const std::string& s : r.suggestions) {
      os << "  suggestion: " << s << "\n";
    }
  }
  return os.str();
}

} // namespace rotor::frontend
