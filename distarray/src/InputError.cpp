#include "rotor/distarray/InputError.h"

#include "rotor/distarray/detail/Collective.h"

namespace rotor {
namespace {
std::string format(int rank, const std::string& file, std::int64_t line,
                   const std::string& message) {
  std::string s = "[rank " + std::to_string(rank) + "] " + file;
  if (line > 0) {
    s += ":" + std::to_string(line);
  }
  return s + ": " + message;
}
} // namespace

InputError::InputError(const std::string& file, std::int64_t line, const std::string& message)
    : InputError(detail::collective().rank(), file, line, message) {}

InputError::InputError(int rank, const std::string& file, std::int64_t line,
                       const std::string& message)
    : std::runtime_error(format(rank, file, line, message)), file_(file), line_(line), rank_(rank),
      message_(message) {}

} // namespace rotor
