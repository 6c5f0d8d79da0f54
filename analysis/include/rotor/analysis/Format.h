#pragma once
/// \file
/// Small text helpers shared by the analysis and the frontend: one `join`, one Offset formatter.
///
/// \code
///   join({"user", "item"})                                  // "user, item"
///   offset_text({-1, "shift"}, OffsetStyle::words)          // "shift - 1"
///   offset_text({-1, "shift"}, OffsetStyle::after_field)    // "+shift-1" (as in `user+shift-1`)
///   offset_text({2, "s"}, OffsetStyle::cpp)                 // "static_cast<std::int64_t>(s) + 2"
/// \endcode

#include "rotor/analysis/LoopModel.h"

#include <string>
#include <vector>

namespace rotor::analysis {

/// The items with `sep` between them.
std::string join(const std::vector<std::string>& items, const std::string& sep = ", ");

/// How an Offset (a number, or a loop-invariant symbol plus a number) is written.
enum class OffsetStyle {
  model,       ///< the loop-model text format, standing alone: "3", "c", "c+1", "c-1"
  after_field, ///< the model format after a key field: "", "+1", "-1", "+s", "+s-1"
  words,       ///< prose: "3", "s", "s + 1", "s - 1"
  cpp,         ///< a C++ expression: "3", "static_cast<std::int64_t>(s) - 1"
};

std::string offset_text(const Offset& offset, OffsetStyle style);

} // namespace rotor::analysis
