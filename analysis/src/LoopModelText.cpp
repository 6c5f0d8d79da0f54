#include "rotor/analysis/LoopModelText.h"

#include "rotor/analysis/Format.h"

#include <cctype>
#include <fstream>
#include <sstream>
#include <vector>

namespace rotor::analysis {
namespace {

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) {
    return false;
  }
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) {
      return false;
    }
  }
  return true;
}

bool is_integer(const std::string& s) {
  if (s.empty() || s.size() > 15) {
    return false;
  }
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) {
      return false;
    }
  }
  return true;
}

/// A line, column, rank or dimension: digits only, at most 9 of them (fits an int).
bool is_small_int(const std::string& s) {
  return is_integer(s) && s.size() <= 9;
}

class Parser {
public:
  Parser(std::string file) : file_(std::move(file)) {}

  LoopModel parse(const std::string& text) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
      ++line_no_;
      statement(line);
    }
    if (!have_space_) {
      fail_file("no 'dataset FIELD...' or 'index_space N' line");
    }
    for (const std::string& b : model_.buffered) {
      if (!model_.array(b)) {
        fail_at(buffered_line_, "buffered names '" + b + "', which is no declared array");
      }
    }
    return std::move(model_);
  }

private:
  [[noreturn]] void fail(const std::string& what) const { fail_at(line_no_, what); }
  [[noreturn]] void fail_at(int line, const std::string& what) const {
    throw LoopModelError(file_ + ":" + std::to_string(line) + ": error: " + what);
  }
  [[noreturn]] void fail_file(const std::string& what) const {
    throw LoopModelError(file_ + ": error: " + what);
  }

  /// Splits off a trailing `"text"` and `@loc`; returns the words before them.
  std::vector<std::string> words(std::string line, std::string* quoted, std::string* at) {
    if (auto q = line.find('"'); q != std::string::npos) {
      auto end = line.rfind('"');
      if (end == q) {
        fail("unterminated quoted text");
      }
      *quoted = line.substr(q + 1, end - q - 1);
      if (line.find_first_not_of(" \t\r", end + 1) != std::string::npos) {
        fail("text after the closing quote");
      }
      line = line.substr(0, q);
    }
    std::istringstream in(line);
    std::vector<std::string> out;
    std::string w;
    while (in >> w) {
      if (w[0] == '@') {
        if (!at->empty()) {
          fail("two locations ('@...') on one line");
        }
        *at = w.substr(1);
        if (at->empty()) {
          fail("'@' without a location");
        }
      } else {
        if (!at->empty()) {
          fail("'" + w + "' after the location; the location comes last (before \"text\")");
        }
        out.push_back(w);
      }
    }
    return out;
  }

  SourceLoc location(const std::string& at) const {
    SourceLoc loc{file_, line_no_, 0};
    if (at.empty()) {
      return loc;
    }
    std::vector<std::string> parts;
    std::stringstream ss(at);
    std::string p;
    while (std::getline(ss, p, ':')) {
      parts.push_back(p);
    }
    if (parts.size() == 1 && is_small_int(parts[0])) {
      loc.line = std::stoi(parts[0]);
      return loc;
    }
    if ((parts.size() == 2 || parts.size() == 3) && !parts[0].empty() && is_small_int(parts[1]) &&
        (parts.size() == 2 || is_small_int(parts[2]))) {
      loc.file = parts[0];
      loc.line = std::stoi(parts[1]);
      loc.col = parts.size() == 3 ? std::stoi(parts[2]) : 0;
      return loc;
    }
    fail("cannot read location '@" + at + "' (expected @LINE, @FILE:LINE or @FILE:LINE:COL)");
  }

  void statement(std::string line) {
    if (auto hash = line.find('#'); hash != std::string::npos && line.find('"') > hash) {
      line = line.substr(0, hash);
    } else if (hash != std::string::npos) {
      // a '#' inside quoted text is text; one after the closing quote is a comment
      auto end = line.rfind('"');
      if (auto h2 = line.find('#', end); h2 != std::string::npos) {
        line = line.substr(0, h2);
      }
    }
    std::string quoted, at;
    std::vector<std::string> w = words(line, &quoted, &at);
    if (w.empty()) {
      if (!at.empty() || !quoted.empty()) {
        fail("a location or text without a statement");
      }
      return;
    }
    const std::string& kw = w[0];
    if (kw == "loop") {
      expect_count(w, 1, 2, "loop [FILE:LINE]");
      model_.loc = location(w.size() == 2 ? w[1] : at);
    } else if (kw == "dataset" || kw == "index_space") {
      space(w);
    } else if (kw == "ordered") {
      expect_count(w, 1, 1, "ordered");
      model_.ordered = true;
    } else if (kw == "buffered") {
      expect_count(w, 2, 1000, "buffered ARRAY...");
      buffered_line_ = line_no_;
      model_.buffered.insert(model_.buffered.end(), w.begin() + 1, w.end());
    } else if (kw == "array") {
      array(w);
    } else if (kw == "read" || kw == "write") {
      access(w, quoted, at);
    } else if (kw == "reduction") {
      expect_count(w, 2, 3, "reduction NAME [OP]");
      if (!is_identifier(w[1])) {
        fail("reduction name '" + w[1] + "' is not an identifier");
      }
      model_.reductions.push_back({w[1], w.size() == 3 ? w[2] : "+", location(at)});
    } else if (kw == "escape") {
      escape(w, quoted, at);
    } else {
      fail("unknown statement '" + kw +
           "' (expected loop, dataset, index_space, ordered, buffered, array, read, write, "
           "reduction or escape)");
    }
  }

  void expect_count(const std::vector<std::string>& w, std::size_t lo, std::size_t hi,
                    const char* form) const {
    if (w.size() < lo || w.size() > hi) {
      fail(std::string("expected '") + form + "'");
    }
  }

  void space(const std::vector<std::string>& w) {
    if (have_space_) {
      fail("a second iteration space ('dataset' or 'index_space')");
    }
    have_space_ = true;
    if (model_.loc.line == 0) {
      model_.loc = {file_, line_no_, 0};
    }
    if (w[0] == "dataset") {
      expect_count(w, 2, 64, "dataset FIELD...");
      model_.space = SpaceKind::dataset;
      for (std::size_t i = 1; i < w.size(); ++i) {
        if (!is_identifier(w[i])) {
          fail("key field '" + w[i] + "' is not an identifier");
        }
        if (model_.field_index(w[i]) >= 0) {
          fail("key field '" + w[i] + "' listed twice");
        }
        model_.fields.push_back(w[i]);
      }
    } else {
      expect_count(w, 2, 2, "index_space N");
      if (!is_small_int(w[1]) || std::stoi(w[1]) < 1 || std::stoi(w[1]) > 8) {
        fail("index_space dimension '" + w[1] + "' is not a number from 1 to 8");
      }
      model_.space = SpaceKind::index_space;
      for (int i = 0; i < std::stoi(w[1]); ++i) {
        model_.fields.push_back("i" + std::to_string(i));
      }
    }
  }

  void array(const std::vector<std::string>& w) {
    expect_count(w, 3, 4, "array NAME RANK [ELEMENT]");
    if (!is_identifier(w[1])) {
      fail("array name '" + w[1] + "' is not an identifier");
    }
    if (model_.array(w[1])) {
      fail("array '" + w[1] + "' declared twice");
    }
    if (!is_small_int(w[2]) || std::stoi(w[2]) < 1 || std::stoi(w[2]) > 8) {
      fail("rank '" + w[2] + "' of array '" + w[1] + "' is not a number from 1 to 8");
    }
    model_.arrays.push_back({w[1], std::stoi(w[2]), w.size() == 4 ? w[3] : ""});
  }

  /// `a+b-3` -> terms with signs.
  Subscript subscript(const std::string& s) {
    if (s == ":") {
      return Subscript::whole(s);
    }
    if (!s.empty() && s[0] == '?') {
      return Subscript::unknown(s.size() > 1 ? s.substr(1) : s);
    }
    auto bad = [&](const std::string& why) {
      fail("cannot read subscript '" + s + "': " + why +
           " (expected FIELD, FIELD+OFFSET, CONSTANT, ':' or '?TEXT')");
    };
    std::vector<std::pair<int, std::string>> terms;
    int sign = 1;
    std::string cur;
    for (char c : s + "+") {
      if (c == '+' || c == '-') {
        if (cur.empty()) {
          if (!terms.empty() || c == '+') {
            bad("a sign without a term");
          }
          sign = -sign;
          continue;
        }
        terms.push_back({sign, cur});
        cur.clear();
        sign = c == '-' ? -1 : 1;
      } else if (!std::isspace(static_cast<unsigned char>(c))) {
        cur += c;
      }
    }
    int field = -1;
    Offset offset;
    for (const auto& [sg, t] : terms) {
      if (is_integer(t)) {
        offset.value += sg * std::stoll(t);
      } else if (!is_identifier(t)) {
        bad("'" + t + "' is neither a number nor a name");
      } else if (int f = model_.field_index(t); f >= 0) {
        if (field >= 0 || sg < 0) {
          bad(sg < 0 ? "a negated key field" : "two key fields");
        }
        field = f;
      } else {
        if (!offset.symbol.empty()) {
          bad("two named offsets");
        }
        offset.symbol = sg < 0 ? "-" + t : t;
      }
    }
    if (field >= 0) {
      return Subscript::key(field, offset, s);
    }
    return Subscript::constant(offset, s);
  }

  void access(const std::vector<std::string>& w, const std::string& quoted, const std::string& at) {
    if (!have_space_) {
      fail("an access before the 'dataset' or 'index_space' line");
    }
    expect_count(w, 2, 2, "read|write ARRAY[SUB]... [@LOC] [\"TEXT\"]");
    const std::string& spec = w[1];
    auto open = spec.find('[');
    const std::string name = spec.substr(0, open);
    const ArrayDecl* decl = model_.array(name);
    if (!decl) {
      fail("access to undeclared array '" + name + "' (declare it with 'array " + name + " RANK')");
    }
    Access a;
    a.array = name;
    a.write = w[0] == "write";
    a.loc = location(at);
    a.text = quoted;
    std::size_t pos = open;
    while (pos != std::string::npos && pos < spec.size()) {
      if (spec[pos] != '[') {
        fail("unexpected '" + spec.substr(pos) + "' in access '" + spec + "'");
      }
      // Brackets nest inside unknown subscripts: `?perm[user]`.
      int depth = 0;
      std::size_t end = pos;
      for (; end < spec.size(); ++end) {
        depth += spec[end] == '[' ? 1 : spec[end] == ']' ? -1 : 0;
        if (depth == 0) {
          break;
        }
      }
      if (end == spec.size()) {
        fail("unbalanced '[' in access '" + spec + "'");
      }
      a.subscripts.push_back(subscript(spec.substr(pos + 1, end - pos - 1)));
      pos = end + 1;
    }
    if (static_cast<int>(a.subscripts.size()) != decl->rank) {
      fail("access '" + spec + "' has " + std::to_string(a.subscripts.size()) +
           " subscripts; array '" + name + "' has rank " + std::to_string(decl->rank));
    }
    model_.accesses.push_back(std::move(a));
  }

  void escape(const std::vector<std::string>& w, const std::string& quoted, const std::string& at) {
    if (w.size() < 2) {
      fail("expected 'escape KIND [WHAT...]'");
    }
    Escape e;
    const std::string& k = w[1];
    if (k == "outside_write") {
      e.kind = Escape::Kind::outside_write;
    } else if (k == "pointer_taken") {
      e.kind = Escape::Kind::pointer_taken;
    } else if (k == "unknown_call") {
      e.kind = Escape::Kind::unknown_call;
    } else if (k == "control_flow") {
      e.kind = Escape::Kind::control_flow;
    } else if (k == "compiler_dependent") {
      e.kind = Escape::Kind::compiler_dependent;
    } else if (k == "plain_container") {
      e.kind = Escape::Kind::plain_container;
    } else {
      fail("unknown escape kind '" + k +
           "' (expected outside_write, pointer_taken, unknown_call, control_flow, "
           "compiler_dependent or plain_container)");
    }
    for (std::size_t i = 2; i < w.size(); ++i) {
      e.what += (i > 2 ? " " : "") + w[i];
    }
    if (!quoted.empty()) {
      e.what += (e.what.empty() ? "" : " ") + quoted;
    }
    e.loc = location(at);
    model_.escapes.push_back(std::move(e));
  }

  std::string file_;
  int line_no_ = 0;
  int buffered_line_ = 0;
  bool have_space_ = false;
  LoopModel model_;
};

std::string loc_text(const SourceLoc& loc) {
  if (loc.line <= 0) {
    return {};
  }
  std::string out = " @" + (loc.file.empty() ? "" : loc.file + ":") + std::to_string(loc.line);
  if (loc.col > 0 && !loc.file.empty()) {
    out += ":" + std::to_string(loc.col);
  }
  return out;
}

} // namespace

LoopModel parse_loop_model(const std::string& text, const std::string& file) {
  return Parser(file).parse(text);
}

LoopModel read_loop_model_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    throw LoopModelError(path + ": error: cannot open the loop-model file");
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_loop_model(ss.str(), path);
}

std::string loop_model_to_text(const LoopModel& model) {
  std::ostringstream out;
  if (model.loc.line > 0 && !model.loc.file.empty()) {
    out << "loop " << model.loc.file << ":" << model.loc.line << "\n";
  }
  if (model.space == SpaceKind::index_space) {
    out << "index_space " << model.fields.size() << "\n";
  } else {
    out << "dataset";
    for (const std::string& f : model.fields) {
      out << " " << f;
    }
    out << "\n";
  }
  if (model.ordered) {
    out << "ordered\n";
  }
  if (!model.buffered.empty()) {
    out << "buffered";
    for (const std::string& b : model.buffered) {
      out << " " << b;
    }
    out << "\n";
  }
  for (const ArrayDecl& a : model.arrays) {
    out << "array " << a.name << " " << a.rank << (a.element.empty() ? "" : " " + a.element)
        << "\n";
  }
  for (const Access& a : model.accesses) {
    out << (a.write ? "write " : "read ") << a.array;
    for (const Subscript& s : a.subscripts) {
      out << "[";
      switch (s.kind) {
      case Subscript::Kind::key:
        out << model.fields[static_cast<std::size_t>(s.field)]
            << offset_text(s.offset, OffsetStyle::after_field);
        break;
      case Subscript::Kind::constant:
        out << offset_text(s.offset, OffsetStyle::model);
        break;
      case Subscript::Kind::whole:
        out << ":";
        break;
      case Subscript::Kind::unknown:
        out << "?" << (s.text == "?" ? "" : s.text);
        break;
      }
      out << "]";
    }
    out << loc_text(a.loc) << (a.text.empty() ? "" : " \"" + a.text + "\"") << "\n";
  }
  for (const Reduction& r : model.reductions) {
    out << "reduction " << r.name << " " << r.op << loc_text(r.loc) << "\n";
  }
  static const char* kinds[] = {"outside_write", "pointer_taken",      "unknown_call",
                                "control_flow",  "compiler_dependent", "plain_container"};
  for (const Escape& e : model.escapes) {
    out << "escape " << kinds[static_cast<int>(e.kind)] << loc_text(e.loc)
        << (e.what.empty() ? "" : " \"" + e.what + "\"") << "\n";
  }
  return out.str();
}

} // namespace rotor::analysis
