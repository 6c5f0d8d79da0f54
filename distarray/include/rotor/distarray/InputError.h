#pragma once
/// \file
/// rotor::InputError: a problem with user input (a file, a value), thrown by every loader.
///
/// what() is `[rank R] FILE:LINE: message` (`[rank R] FILE: message` when no line applies, e.g. a
/// missing file). R is the rank that read the bad line; with MPI every rank of a collective load
/// throws the same error, so no rank is left waiting in a collective.

#include <cstdint>
#include <stdexcept>
#include <string>

namespace rotor {

class InputError : public std::runtime_error {
public:
  /// Names this process's rank.
  InputError(const std::string& file, std::int64_t line, const std::string& message);
  /// Names rank `rank` (used to rethrow another rank's error on every rank).
  InputError(int rank, const std::string& file, std::int64_t line, const std::string& message);
  const std::string& file() const { return file_; }
  /// 1-based line number; 0 when the error concerns the whole file.
  std::int64_t line() const { return line_; }
  /// The rank that found the problem.
  int rank() const { return rank_; }
  /// The message without the `[rank R] FILE:LINE: ` prefix.
  const std::string& message() const { return message_; }

private:
  std::string file_;
  std::int64_t line_;
  int rank_;
  std::string message_;
};

} // namespace rotor
