#pragma once
/// A mutable argc/argv built from strings, for tests of flag parsing (parse_settings strips
/// arguments in place, as it does with main's argv).
#include <string>
#include <utility>
#include <vector>

namespace rotor::test {

struct TestArgv {
  std::vector<std::string> text;
  std::vector<char*> ptrs;
  int argc = 0;
  explicit TestArgv(std::vector<std::string> args) : text(std::move(args)) {
    for (auto& s : text) {
      ptrs.push_back(s.data());
    }
    ptrs.push_back(nullptr);
    argc = static_cast<int>(text.size());
  }
};

} // namespace rotor::test
