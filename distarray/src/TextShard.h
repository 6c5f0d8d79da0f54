#pragma once
// Parallel reading of one text file (private to distarray/src): each rank parses the lines that
// start in its byte range, errors are agreed on collectively, then thrown on every rank with the
// global line number of the rank that found them.

#include "rotor/distarray/Loaders.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>

namespace rotor::detail {

/// A problem found on this rank; `line` counts from the first line of the shard (1-based), or 0
/// for a problem with the whole file (every rank finds it).
struct LocalError {
  std::int64_t line;
  std::string message;
};

/// The lines of one rank's share of [begin, end) of a text buffer.
class TextShard {
public:
  /// Lines starting in the `rank`-th of `ranks` equal byte ranges of [begin, end).
  TextShard(const char* begin, const char* end, int rank, int ranks);
  /// The next line without its end-of-line ("\n" or "\r\n"); false at the end of the shard.
  bool next(std::string_view& line) {
    if (pos_ >= stop_) {
      return false;
    }
    const char* nl =
        static_cast<const char*>(std::memchr(pos_, '\n', static_cast<std::size_t>(end_ - pos_)));
    const char* line_end = nl ? nl : end_;
    const char* text_end = line_end;
    if (text_end > pos_ && text_end[-1] == '\r') {
      --text_end;
    }
    line = std::string_view(pos_, static_cast<std::size_t>(text_end - pos_));
    pos_ = nl ? nl + 1 : end_;
    ++line_;
    return true;
  }
  /// Lines returned so far (the current line's number within the shard).
  std::int64_t line() const { return line_; }
  /// Bytes of the file at or after the shard's first line (for size estimates).
  std::size_t bytes() const { return static_cast<std::size_t>(stop_ - pos_); }
  /// The next unread byte.
  const char* position() const { return pos_; }

private:
  const char* pos_;
  const char* stop_;
  const char* end_;
  std::int64_t line_ = 0;
};

/// Where this rank's lines and records start globally, after agree_on_outcome().
struct ShardPlace {
  std::int64_t first_line = 0;   ///< global number of this rank's first line, minus one
  std::int64_t first_record = 0; ///< global index of this rank's first record
  std::int64_t total_records = 0;
  std::int64_t total_items = 0; ///< sum of `items` over ranks (loader-specific counts)
  std::int64_t total_lines = 0; ///< lines before the data plus every rank's lines
};

/// Collective. `lines_before` is the number of lines before the data (headers); `lines`,
/// `records` and `items` this rank's counts; `error` this rank's problem, if any. Throws
/// InputError on every rank if any rank failed (the lowest failing rank's error, with its
/// global line number).
ShardPlace agree_on_outcome(const std::string& path, std::int64_t lines_before, std::int64_t lines,
                            std::int64_t records, std::int64_t items, const LocalError* error);

/// Splits off the next token delimited by any run of spaces/tabs; false if none is left.
inline bool next_word(std::string_view& rest, std::string_view& word) {
  std::size_t i = 0;
  while (i < rest.size() && (rest[i] == ' ' || rest[i] == '\t')) {
    ++i;
  }
  if (i == rest.size()) {
    rest = {};
    return false;
  }
  std::size_t j = i;
  while (j < rest.size() && rest[j] != ' ' && rest[j] != '\t') {
    ++j;
  }
  word = rest.substr(i, j - i);
  rest.remove_prefix(j);
  return true;
}

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

/// Shortened text of a bad value for an error message.
std::string quote(std::string_view s);

/// Parses a whole token as an integer; false if it is not one (or overflows int64).
inline bool parse_int(std::string_view s, std::int64_t& out) {
  if (!s.empty() && s.front() == '+') {
    s.remove_prefix(1);
    if (!s.empty() && s.front() == '-') {
      return false;
    }
  }
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size() && !s.empty();
}

/// Parses a whole token as a floating-point number (nan/inf accepted; callers check).
inline bool parse_double(std::string_view s, double& out) {
  if (!s.empty() && s.front() == '+') {
    s.remove_prefix(1);
    if (!s.empty() && s.front() == '-') {
      return false;
    }
  }
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  if (r.ec == std::errc::result_out_of_range && r.ptr == s.data() + s.size()) {
    out = std::numeric_limits<double>::infinity(); // too large: reported as out of range
    return true;
  }
  return r.ec == std::errc() && r.ptr == s.data() + s.size() && !s.empty();
}

} // namespace rotor::detail
