#pragma once
/// \file
/// "FILE:LINE" of a loop, the way every runtime message names it.

#include "rotor/runtime/Codegen.h"

#include <string>

namespace rotor::detail {

inline std::string loop_where(const codegen::LoopSpec& spec) {
  return std::string(spec.file) + ":" + std::to_string(spec.line);
}

} // namespace rotor::detail
