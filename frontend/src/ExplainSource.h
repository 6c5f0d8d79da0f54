#pragma once
// Private: the user's source lines for the --explain reports (snippets with a caret, loop text).

#include <map>
#include <string>
#include <vector>

namespace rotor::frontend::detail {

/// Reads each file once; a file that cannot be read has no lines (reports then skip snippets).
class SourceCache {
public:
  /// Line `line` (1-based) of `file` without its newline; empty when unknown.
  std::string line(const std::string& file, int line);
  /// All lines of `file` (empty when it cannot be read).
  const std::vector<std::string>& lines(const std::string& file);

private:
  std::map<std::string, std::vector<std::string>> files_;
};

/// Clang-style snippet: "   11 |     nk[old] -= 1;\n      |     ^\n" (no caret when col < 1).
/// Empty when `text` is empty.
std::string snippet(const std::string& text, int line, int col);

/// The first and last line of the statement that starts at `for_line` (braces matched, comments
/// and literals skipped), including a `#pragma rotor` line just above it. {0, 0} when unknown.
std::pair<int, int> loop_extent(const std::vector<std::string>& lines, int for_line);

} // namespace rotor::frontend::detail
