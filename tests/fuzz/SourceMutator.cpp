#include "SourceMutator.h"

#include <algorithm>
#include <cctype>

namespace rotor_fuzz {
namespace {

bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

const char* const kOperators[] = {"<<=", ">>=", "->", "::", "++", "--", "+=", "-=", "*=",
                                  "/=",  "==",  "!=", "<=", ">=", "&&", "||", "<<", ">>"};

const char* const kPunct[] = {"+", "-", "*", "/", "%", "=", "+=", "-=", "++", "--", "[",
                              "]", "(", ")", "{", "}", ";", ",",  ".",  "->", "&",  "&&",
                              "|", "<", ">", "!", "?", ":", "::", "==", "*=", "^"};

const char* const kNumbers[] = {"0",           "1",          "2", "-1", "3",   "7", "1000000000000",
                                "-2147483648", "0x7fffffff", "s", "k",  "1.5f"};

/// Snippets a user might write in a loop body, and things no user should.
const char* const kSnippets[] = {" break; ",
                                 " continue; ",
                                 " return; ",
                                 "\n#pragma rotor parallel_for\n",
                                 "\n#pragma rotor parallel_for ordered\n",
                                 " ordered ",
                                 " buffered(W) ",
                                 " buffered(H, W) ",
                                 " buffered() ",
                                 " device(gpu) ",
                                 " device(cpu) ",
                                 " parallel_for ",
                                 "&",
                                 "*",
                                 "const ",
                                 "auto& ",
                                 "auto ",
                                 "[r.user]",
                                 "[r.item]",
                                 "[r.doc]",
                                 "[r.word]",
                                 "[p[0]]",
                                 "[p[1]]",
                                 ".row(r.user)",
                                 ".row(r.item)",
                                 ".data()",
                                 ".size()",
                                 " + 1",
                                 " - 1",
                                 " + s",
                                 "[0]",
                                 "[k]",
                                 "W",
                                 "H",
                                 "r.user",
                                 "r.item",
                                 "static ",
                                 "[&]() { ",
                                 "}();",
                                 "}",
                                 "{",
                                 "(",
                                 ")",
                                 ";",
                                 " goto end; end:; ",
                                 " throw 1; ",
                                 " for (int k = 0; k < 4; ++k) ",
                                 " if (r.user > 0) ",
                                 " while (false) ",
                                 " std::swap(",
                                 "->",
                                 "&W",
                                 " = ",
                                 " += ",
                                 " -= ",
                                 " new int; ",
                                 "sizeof(",
                                 "decltype(",
                                 "template <class T> ",
                                 "\n#define W H\n",
                                 "\n#undef W\n",
                                 " _Pragma(\"rotor parallel_for\") ",
                                 " __builtin_trap(); ",
                                 " [[maybe_unused]] ",
                                 " auto f = [&](int k) { return W[k][0]; }; ",
                                 " f(r.user); ",
                                 " i0",
                                 " i1",
                                 " p[0]",
                                 " int* q = &W[r.user][0]; ",
                                 " auto& w2 = W; ",
                                 " (void)W; ",
                                 " W = H; ",
                                 " r = r; ",
                                 " static int n = 0; n++; ",
                                 " volatile ",
                                 " mutable ",
                                 " co_return; ",
                                 " #",
                                 " \\\n",
                                 " \"",
                                 " '",
                                 " /*",
                                 " */",
                                 " //",
                                 " ... ",
                                 " typename ",
                                 " operator+ ",
                                 " virtual "};

} // namespace

std::vector<std::string> tokenize(const std::string& text) {
  std::vector<std::string> tokens;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t j = i + 1;
    const char c = text[i];
    if (ident_char(c)) {
      while (j < text.size() && (ident_char(text[j]) ||
                                 (std::isdigit(static_cast<unsigned char>(c)) && text[j] == '.'))) {
        ++j;
      }
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      while (j < text.size() && std::isspace(static_cast<unsigned char>(text[j]))) {
        ++j;
      }
    } else {
      for (const char* op : kOperators) {
        const std::string s(op);
        if (text.compare(i, s.size(), s) == 0) {
          j = i + s.size();
          break;
        }
      }
    }
    tokens.push_back(text.substr(i, j - i));
    i = j;
  }
  return tokens;
}

SourceMutator::SourceMutator(std::vector<SeedSource> seeds, std::uint64_t seed)
    : seeds_(std::move(seeds)), rng_(seed) {}

Mutant SourceMutator::next() {
  Mutant m;
  m.seed = static_cast<int>(rng_() % seeds_.size());
  m.text = seeds_[static_cast<std::size_t>(m.seed)].text;
  // Mostly one edit: most mutants of several edits no longer parse, and the checks that matter
  // (lowering, plans) need files Clang accepts.
  const auto dice = rng_() % 10;
  const int edits = dice < 6 ? 1 : dice < 9 ? 2 : 4;
  for (int e = 0; e < edits; ++e) {
    std::string edit;
    m.text = mutate_once(m.text, edit);
    m.edits += edit + "\n";
  }
  return m;
}

/// A token index, four times in five inside an annotated loop (the 40 lines after a
/// `#pragma rotor`), else anywhere.
std::size_t SourceMutator::pick_token(const std::vector<std::string>& tokens) {
  std::vector<std::size_t> focus;
  int lines_left = 0;
  for (std::size_t t = 0; t < tokens.size(); ++t) {
    if (tokens[t] == "rotor" && t >= 2 && tokens[t - 2] == "pragma") {
      lines_left = 40;
    }
    if (lines_left > 0) {
      focus.push_back(t);
      lines_left -= static_cast<int>(std::count(tokens[t].begin(), tokens[t].end(), '\n'));
    }
  }
  if (!focus.empty() && rng_() % 5 != 0) {
    return focus[rng_() % focus.size()];
  }
  return rng_() % tokens.size();
}

std::string SourceMutator::mutate_once(const std::string& text, std::string& edit) {
  std::vector<std::string> tokens = tokenize(text);
  if (tokens.empty()) {
    edit = "insert into empty";
    return kSnippets[rng_() % std::size(kSnippets)];
  }
  const std::size_t t = pick_token(tokens);
  const std::string old = tokens[t];
  auto any_of_kind = [&](bool identifier) {
    std::vector<std::size_t> c;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      if (!tokens[i].empty() && ident_char(tokens[i][0]) &&
          (std::isdigit(static_cast<unsigned char>(tokens[i][0])) == 0) == identifier) {
        c.push_back(i);
      }
    }
    return c.empty() ? t : c[rng_() % c.size()];
  };
  switch (rng_() % 12) {
  case 0:
  case 1: { // identifier -> another identifier of this file
    const std::size_t from = any_of_kind(true), to = any_of_kind(true);
    edit = "replace '" + tokens[to] + "' by '" + tokens[from] + "'";
    tokens[to] = tokens[from];
    break;
  }
  case 2: { // number -> another
    const std::size_t at = any_of_kind(false);
    const std::string was = tokens[at];
    tokens[at] = kNumbers[rng_() % std::size(kNumbers)];
    edit = "number '" + was + "' -> '" + tokens[at] + "'";
    break;
  }
  case 3:
    tokens[t] = kPunct[rng_() % std::size(kPunct)];
    edit = "token '" + old + "' -> '" + tokens[t] + "'";
    break;
  case 4:
    tokens[t].clear();
    edit = "delete '" + old + "'";
    break;
  case 5:
    tokens[t] += old;
    edit = "duplicate '" + old + "'";
    break;
  case 6:
  case 7:
  case 8: {
    const std::string s = kSnippets[rng_() % std::size(kSnippets)];
    tokens[t] = (rng_() % 2 != 0) ? s + old : old + s;
    edit = "insert '" + s + "' at '" + old + "'";
    break;
  }
  default: { // line edits: delete, duplicate, swap with the next, splice from another seed
    std::string joined;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < t; ++i) {
      joined += tokens[i];
    }
    line_start = joined.rfind('\n');
    line_start = line_start == std::string::npos ? 0 : line_start + 1;
    std::size_t line_end = text.find('\n', joined.size());
    line_end = line_end == std::string::npos ? text.size() : line_end + 1;
    const std::string line = text.substr(line_start, line_end - line_start);
    std::string before = text.substr(0, line_start), after = text.substr(line_end);
    const auto kind = rng_() % 4;
    if (kind == 0) {
      edit = "delete line '" + line + "'";
      return before + after;
    }
    if (kind == 1) {
      edit = "duplicate line '" + line + "'";
      return before + line + line + after;
    }
    if (kind == 2) {
      std::size_t next_end = after.find('\n');
      next_end = next_end == std::string::npos ? after.size() : next_end + 1;
      edit = "swap line '" + line + "' with the next";
      return before + after.substr(0, next_end) + line + after.substr(next_end);
    }
    const std::string& other = seeds_[rng_() % seeds_.size()].text;
    std::size_t at = other.empty() ? 0 : rng_() % other.size();
    at = other.rfind('\n', at);
    at = at == std::string::npos ? 0 : at + 1;
    std::size_t end = other.find('\n', at);
    end = end == std::string::npos ? other.size() : end + 1;
    const std::string spliced = other.substr(at, end - at);
    edit = "splice line '" + spliced + "'";
    return before + spliced + line + after;
  }
  }
  if (rng_() % 50 == 0) { // rarely, raw bytes
    std::string out;
    for (const auto& s : tokens) {
      out += s;
    }
    if (!out.empty()) {
      const std::size_t at = rng_() % out.size();
      out[at] = static_cast<char>(rng_() % 256);
      edit += "; byte flip at " + std::to_string(at);
    }
    return out;
  }
  std::string out;
  for (const auto& s : tokens) {
    out += s;
  }
  return out;
}

} // namespace rotor_fuzz
