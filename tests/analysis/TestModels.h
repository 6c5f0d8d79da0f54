#pragma once
// Test helper: a loop model from the text format, so each table row reads like the loop it is.

#include "rotor/analysis/LoopModelText.h"

#include <string>

namespace rotor::analysis::test {

inline LoopModel model_from(const std::string& text) {
  return parse_loop_model(text, "t.loop");
}

} // namespace rotor::analysis::test
