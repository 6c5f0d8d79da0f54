// The --explain=html page: the text report's content, one section per loop, with the loop's
// source (blocking lines marked), inline CSS and no external resources.
#include "ExplainReport.h"
#include "rotor/frontend/Explain.h"

#include <sstream>

namespace rotor::frontend {
namespace {

std::string escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&#39;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

const char* k_style = R"css(
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 70em; color: #222;
       line-height: 1.45; padding: 0 1em; }
h1 { font-size: 1.5em; }
section { border: 1px solid #ccc; border-radius: 6px; padding: 0.5em 1.2em 1em; margin: 1.5em 0; }
h2 { font-size: 1.15em; font-family: ui-monospace, monospace; }
.kind { display: inline-block; padding: 0.1em 0.6em; border-radius: 4px; color: #fff;
        font-family: ui-monospace, monospace; background: #2b7a3d; }
.kind.serial { background: #b03a2e; }
.kind.data_parallel { background: #9a6b00; }
pre { background: #f6f6f6; padding: 0.6em; overflow-x: auto; font-size: 0.9em; }
pre .ln { color: #999; user-select: none; }
pre .blocking { background: #fbdcd8; display: inline-block; width: 100%; }
pre .caret { color: #b03a2e; font-weight: bold; }
table { border-collapse: collapse; margin: 0.5em 0; }
td, th { border: 1px solid #ddd; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
th { background: #f0f0f0; }
code { font-family: ui-monospace, monospace; }
.blocker { border-left: 4px solid #b03a2e; padding-left: 0.8em; }
.suggestion { border-left: 4px solid #2b7a3d; padding-left: 0.8em; }
)css";

void write_source(std::ostream& os, const detail::LoopReport& r) {
  if (r.source.empty()) {
    return;
  }
  os << "<pre>";
  for (std::size_t i = 0; i < r.source.size(); ++i) {
    const int line = r.first_line + static_cast<int>(i);
    const detail::BlockerReport* blocking = nullptr;
    for (const detail::BlockerReport& b : r.blockers) {
      if (b.line == line && !blocking) {
        blocking = &b;
      }
    }
    std::string number = std::to_string(line);
    number.insert(0, number.size() < 5 ? 5 - number.size() : 0, ' ');
    os << "<span class=\"ln\">" << number << " | </span>";
    if (blocking) {
      os << "<span class=\"blocking\">" << escape(r.source[i]) << "</span>\n";
      if (blocking->col > 0) {
        os << "<span class=\"ln\">      | </span><span class=\"caret\">"
           << std::string(static_cast<std::size_t>(blocking->col - 1), ' ')
           << "^ blocking</span>\n";
      }
    } else {
      os << escape(r.source[i]) << "\n";
    }
  }
  os << "</pre>\n";
}

void write_loop(std::ostream& os, const detail::LoopReport& r, std::size_t index) {
  const std::string kind = r.plan.substr(0, r.plan.find(' '));
  os << "<section id=\"loop-" << index << "\">\n";
  os << "<h2>" << escape(r.file) << ":" << r.line << "</h2>\n";
  os << "<p>" << escape(r.header) << "</p>\n";
  os << "<p><span class=\"kind " << escape(kind) << "\">" << escape(r.plan) << "</span></p>\n";
  os << "<p class=\"plan\">" << escape(r.sentence) << "</p>\n";
  const int last_line = r.first_line + static_cast<int>(r.source.size()) - 1;
  for (const detail::BlockerReport& b : r.blockers) {
    os << "<p class=\"blocker\"><strong>Blocked by</strong>"
       << (b.where.empty() ? "" : " (" + escape(b.where) + ")") << ": " << escape(b.what)
       << "</p>\n";
    if (!b.source_line.empty() &&
        (r.source.empty() || b.line < r.first_line || b.line > last_line)) {
      // Outside the loop's own lines (a helper function): its line on its own.
      detail::LoopReport alone;
      alone.first_line = b.line;
      alone.source = {b.source_line};
      alone.blockers = {b};
      write_source(os, alone);
    }
  }
  write_source(os, r);
  if (!r.arrays.empty()) {
    os << "<table>\n<tr><th>array</th><th>role</th><th>why</th></tr>\n";
    for (const detail::ArrayReport& a : r.arrays) {
      os << "<tr><td><code>" << escape(a.name) << "</code></td><td>" << escape(a.role)
         << "</td><td>" << escape(a.sentence) << "</td></tr>\n";
    }
    os << "</table>\n";
  }
  auto list = [&](const char* title, const std::vector<std::string>& items, const char* cls) {
    if (items.empty()) {
      return;
    }
    os << "<h3>" << title << "</h3>\n<ul>\n";
    for (const std::string& s : items) {
      os << "<li" << (cls[0] ? std::string(" class=\"") + cls + "\"" : std::string()) << ">"
         << escape(s) << "</li>\n";
    }
    os << "</ul>\n";
  };
  list("Reductions", r.reductions, "");
  list("Dependences", r.dependences, "");
  list("Notes", r.notes, "");
  list("Suggestions", r.suggestions, "suggestion");
  os << "</section>\n";
}

} // namespace

std::string explain_html(const std::vector<LoopResult>& loops, const std::string& title) {
  std::ostringstream os;
  os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"
     << escape(title) << "</title>\n<style>" << k_style << "</style>\n</head>\n<body>\n";
  os << "<h1>" << escape(title) << "</h1>\n";
  detail::SourceCache sources;
  std::vector<detail::LoopReport> reports;
  for (const LoopResult& l : loops) {
    reports.push_back(detail::make_report(l, sources));
  }
  if (reports.empty()) {
    os << "<p>no <code>#pragma rotor parallel_for</code> loops</p>\n";
  } else {
    os << "<table>\n<tr><th>loop</th><th>plan</th></tr>\n";
    for (std::size_t i = 0; i < reports.size(); ++i) {
      os << "<tr><td><a href=\"#loop-" << i << "\">" << escape(reports[i].file) << ":"
         << reports[i].line << "</a></td><td><code>" << escape(reports[i].plan)
         << "</code></td></tr>\n";
    }
    os << "</table>\n";
  }
  for (std::size_t i = 0; i < reports.size(); ++i) {
    write_loop(os, reports[i], i);
  }
  os << "</body>\n</html>\n";
  return os.str();
}

} // namespace rotor::frontend
