#include "ExplainSource.h"

#include <fstream>

namespace rotor::frontend::detail {

const std::vector<std::string>& SourceCache::lines(const std::string& file) {
  auto it = files_.find(file);
  if (it != files_.end()) {
    return it->second;
  }
  std::vector<std::string> out;
  std::ifstream in(file);
  for (std::string l; std::getline(in, l);) {
    if (!l.empty() && l.back() == '\r') {
      l.pop_back();
    }
    out.push_back(l);
  }
  return files_.emplace(file, std::move(out)).first->second;
}

std::string SourceCache::line(const std::string& file, int line) {
  const std::vector<std::string>& all = lines(file);
  if (line < 1 || static_cast<std::size_t>(line) > all.size()) {
    return {};
  }
  return all[static_cast<std::size_t>(line - 1)];
}

std::string snippet(const std::string& text, int line, int col) {
  if (text.empty()) {
    return {};
  }
  std::string number = std::to_string(line);
  if (number.size() < 5) {
    number.insert(0, 5 - number.size(), ' ');
  }
  std::string out = number + " | " + text + "\n";
  if (col >= 1) {
    std::string caret(number.size(), ' ');
    caret += " | ";
    for (int i = 1; i < col && i <= static_cast<int>(text.size()); ++i) {
      caret += text[static_cast<std::size_t>(i - 1)] == '\t' ? '\t' : ' ';
    }
    out += caret + "^\n";
  }
  return out;
}

std::pair<int, int> loop_extent(const std::vector<std::string>& lines, int for_line) {
  if (for_line < 1 || static_cast<std::size_t>(for_line) > lines.size()) {
    return {0, 0};
  }
  int first = for_line;
  if (first > 1 &&
      lines[static_cast<std::size_t>(first - 2)].find("#pragma rotor") != std::string::npos) {
    --first;
  }
  // Scan from the `for`: the statement ends at the brace that closes the body, or at the `;` of
  // a body without braces once the header's parentheses are closed.
  int parens = 0;
  int braces = 0;
  bool header_done = false;
  bool in_block_comment = false;
  for (std::size_t l = static_cast<std::size_t>(for_line - 1); l < lines.size(); ++l) {
    const std::string& s = lines[l];
    for (std::size_t i = 0; i < s.size(); ++i) {
      const char c = s[i];
      if (in_block_comment) {
        if (c == '*' && i + 1 < s.size() && s[i + 1] == '/') {
          in_block_comment = false;
          ++i;
        }
        continue;
      }
      if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
        break;
      }
      if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
        in_block_comment = true;
        ++i;
        continue;
      }
      if (c == '"' || c == '\'') {
        for (++i; i < s.size() && s[i] != c; ++i) {
          if (s[i] == '\\') {
            ++i;
          }
        }
        continue;
      }
      if (c == '(') {
        ++parens;
      } else if (c == ')') {
        if (--parens == 0) {
          header_done = true;
        }
      } else if (c == '{' && header_done) {
        ++braces;
      } else if (c == '}' && header_done) {
        if (--braces == 0) {
          return {first, static_cast<int>(l + 1)};
        }
      } else if (c == ';' && header_done && braces == 0 && parens == 0) {
        return {first, static_cast<int>(l + 1)};
      }
    }
  }
  return {0, 0};
}

} // namespace rotor::frontend::detail
