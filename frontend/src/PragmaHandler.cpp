#include "PragmaHandler.h"

namespace rotor::frontend {
namespace {

/// Token stream of the rest of one pragma line.
class PragmaLine {
public:
  PragmaLine(clang::Preprocessor& pp, RotorPragma& out) : pp_(pp), out_(out) { next(); }
  const clang::Token& tok() const { return tok_; }
  bool at_end() const { return tok_.is(clang::tok::eod); }
  void next() {
    if (!at_end() || !started_) {
      if (started_) {
        out_.last = tok_.getLocation();
      }
      started_ = true;
      pp_.Lex(tok_);
    }
  }
  std::string spelling() const { return pp_.getSpelling(tok_); }
  void fail(const std::string& message) {
    if (out_.error.empty()) {
      out_.error = message;
      out_.error_loc = tok_.getLocation();
    }
  }
  bool expect(clang::tok::TokenKind kind, const char* what) {
    if (!tok_.is(kind)) {
      fail(std::string("expected ") + what + " in '#pragma rotor parallel_for', found '" +
           (at_end() ? std::string("end of line") : spelling()) + "'");
      return false;
    }
    next();
    return true;
  }
  void skip_rest() {
    while (!at_end()) {
      next();
    }
  }

private:
  clang::Preprocessor& pp_;
  RotorPragma& out_;
  clang::Token tok_;
  bool started_ = false;
};

/// `(a, b, ...)` after `clause` (the clause name already read); false after an error.
bool parse_names(PragmaLine& line, const std::string& clause, std::vector<std::string>& names) {
  if (!line.expect(clang::tok::l_paren, ("'(' after '" + clause + "'").c_str())) {
    return false;
  }
  const std::size_t before = names.size();
  while (line.tok().is(clang::tok::identifier)) {
    names.push_back(line.spelling());
    line.next();
    if (line.tok().is(clang::tok::comma)) {
      line.next();
    }
  }
  if (names.size() == before) {
    line.fail("'" + clause + "' needs at least one name: " + clause + "(a, b)");
    return false;
  }
  return line.expect(clang::tok::r_paren, ("')' closing '" + clause + "('").c_str());
}

void parse_clauses(PragmaLine& line, RotorPragma& p) {
  while (!line.at_end() && p.error.empty()) {
    if (line.tok().is(clang::tok::comma)) {
      line.next();
      continue;
    }
    // `private` is a C++ keyword, not an identifier token.
    if (!line.tok().is(clang::tok::identifier) && !line.tok().is(clang::tok::kw_private)) {
      line.fail("unexpected '" + line.spelling() + "' in '#pragma rotor parallel_for'");
      return;
    }
    const std::string clause = line.spelling();
    if (clause == "ordered") {
      p.ordered = true;
      line.next();
    } else if (clause == "buffered" || clause == "private") {
      line.next();
      if (!parse_names(line, clause, clause == "buffered" ? p.buffered : p.privates)) {
        return;
      }
    } else if (clause == "device") {
      line.next();
      if (!line.expect(clang::tok::l_paren, "'(' after 'device'")) {
        return;
      }
      const std::string dev = line.tok().is(clang::tok::identifier) ? line.spelling() : "";
      if (dev != "cpu" && dev != "gpu") {
        line.fail("unknown device '" + line.spelling() + "' (expected cpu or gpu)");
        return;
      }
      p.gpu = dev == "gpu";
      line.next();
      line.expect(clang::tok::r_paren, "')' closing 'device('");
    } else {
      line.fail("unknown clause '" + clause +
                "' in '#pragma rotor parallel_for' (expected ordered, buffered(...), "
                "private(...) or device(cpu|gpu))");
      return;
    }
  }
}

} // namespace

void RotorPragmaHandler::HandlePragma(clang::Preprocessor& pp, clang::PragmaIntroducer introducer,
                                      clang::Token& first) {
  RotorPragma p;
  p.hash = introducer.Loc;
  p.last = first.getLocation();
  PragmaLine line(pp, p);
  if (line.at_end() || !line.tok().is(clang::tok::identifier) ||
      line.spelling() != "parallel_for") {
    line.fail("unknown rotor pragma '" + (line.at_end() ? std::string() : line.spelling()) +
              "' (expected '#pragma rotor parallel_for')");
  } else {
    line.next();
    parse_clauses(line, p);
  }
  line.skip_rest();
  out_.push_back(std::move(p));
}

} // namespace rotor::frontend
