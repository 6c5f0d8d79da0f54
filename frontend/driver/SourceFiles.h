#pragma once
/// \file
/// Which command-line arguments of rotor-cc are C++ source files (by extension, as GCC decides).

#include <string>

namespace rotor::driver {

/// True when `a` ends with a C++ source extension (.cpp, .cc, .cxx, .c++, .C, .cp).
inline bool is_cpp_source(const std::string& a) {
  for (const std::string ext : {".cpp", ".cc", ".cxx", ".c++", ".C", ".cp"}) {
    if (a.size() >= ext.size() && a.compare(a.size() - ext.size(), ext.size(), ext) == 0) {
      return true;
    }
  }
  return false;
}

} // namespace rotor::driver
