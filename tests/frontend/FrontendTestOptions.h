#pragma once
/// \file
/// The Clang arguments rotor-cc uses (its configuration's compile lines) plus the test cases'
/// directory, for tests that run the frontend in-process. Needs ROTOR_TEST_CC_CONFIG and
/// ROTOR_TEST_CASES_DIR (tests/frontend/CMakeLists.txt defines both).
#include "rotor/frontend/Frontend.h"

#include <fstream>
#include <string>

namespace rotor::frontend::test {

inline Options options() {
  Options o;
  std::ifstream cfg(ROTOR_TEST_CC_CONFIG);
  std::string line;
  while (std::getline(cfg, line)) {
    if (line.rfind("compile ", 0) == 0) {
      o.clang_args.push_back(line.substr(8));
    }
  }
  o.clang_args.push_back("-I" ROTOR_TEST_CASES_DIR);
  return o;
}

} // namespace rotor::frontend::test
