#include "UserHeaders.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace rotor::frontend {
namespace {

namespace fs = std::filesystem;

struct SearchPath {
  std::vector<fs::path> quote; ///< -iquote, then -I (for "...")
  std::vector<fs::path> angle; ///< -I (for <...>; -isystem directories are not the user's)
};

SearchPath search_path(const std::vector<std::string>& args) {
  SearchPath s;
  std::vector<fs::path> iquote, user;
  for (std::size_t i = 0; i < args.size(); ++i) {
    for (const auto& [opt, into] :
         {std::pair<std::string, std::vector<fs::path>*>{"-iquote", &iquote},
          std::pair<std::string, std::vector<fs::path>*>{"-I", &user}}) {
      if (args[i] == opt && i + 1 < args.size()) {
        into->push_back(args[i + 1]);
      } else if (args[i].size() > opt.size() && args[i].compare(0, opt.size(), opt) == 0) {
        into->push_back(args[i].substr(opt.size()));
      }
    }
  }
  s.quote = iquote;
  s.quote.insert(s.quote.end(), user.begin(), user.end());
  s.angle = user;
  return s;
}

/// The header names of `code`'s `#include "x"` (quoted true) and `#include <x>` lines.
std::vector<std::pair<std::string, bool>> includes_of(const std::string& code) {
  std::vector<std::pair<std::string, bool>> out;
  std::istringstream lines(code);
  for (std::string line; std::getline(lines, line);) {
    std::size_t i = line.find_first_not_of(" \t");
    if (i == std::string::npos || line[i] != '#') {
      continue;
    }
    i = line.find_first_not_of(" \t", i + 1);
    if (i == std::string::npos || line.compare(i, 7, "include") != 0) {
      continue;
    }
    i = line.find_first_not_of(" \t", i + 7);
    if (i == std::string::npos || (line[i] != '"' && line[i] != '<')) {
      continue;
    }
    const char close = line[i] == '"' ? '"' : '>';
    const std::size_t end = line.find(close, i + 1);
    if (end != std::string::npos) {
      out.emplace_back(line.substr(i + 1, end - i - 1), close == '"');
    }
  }
  return out;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class Walk {
public:
  explicit Walk(SearchPath path) : path_(std::move(path)) {}

  /// True when a user header included by `code` (in directory `dir`) mentions a Rotor pragma.
  bool any(const fs::path& dir, const std::string& code) {
    for (const auto& [name, quoted] : includes_of(code)) {
      const fs::path header = find(dir, name, quoted);
      std::error_code ec;
      if (header.empty() || !seen_.insert(fs::weakly_canonical(header, ec)).second) {
        continue;
      }
      const std::string text = read_file(header);
      if (mentions_rotor_pragma(text) || any(header.parent_path(), text)) {
        return true;
      }
    }
    return false;
  }

private:
  fs::path find(const fs::path& dir, const std::string& name, bool quoted) const {
    std::error_code ec;
    if (quoted && fs::is_regular_file(dir / name, ec)) {
      return dir / name;
    }
    for (const fs::path& d : quoted ? path_.quote : path_.angle) {
      if (fs::is_regular_file(d / name, ec)) {
        return d / name;
      }
    }
    return {};
  }

  SearchPath path_;
  std::set<fs::path> seen_;
};

} // namespace

bool mentions_rotor_pragma(const std::string& code) {
  for (std::size_t at = code.find("pragma"); at != std::string::npos;
       at = code.find("pragma", at + 1)) {
    std::size_t i = at + 6;
    while (i < code.size() &&
           (code[i] == ' ' || code[i] == '\t' || code[i] == '(' || code[i] == '"')) {
      ++i;
    }
    if (code.compare(i, 5, "rotor") == 0) {
      return true;
    }
  }
  return false;
}

bool user_headers_mention_rotor_pragma(const std::string& path, const std::string& code,
                                       const std::vector<std::string>& args) {
  return Walk(search_path(args)).any(fs::path(path).parent_path(), code);
}

} // namespace rotor::frontend
