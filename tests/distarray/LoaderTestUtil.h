#pragma once
// Temporary input files for loader tests.

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace rotor_test {

/// A file with the given contents, removed when the object goes out of scope.
class TempFile {
public:
  explicit TempFile(const std::string& contents, const std::string& suffix = ".txt") {
    static int counter = 0;
    path_ =
        (std::filesystem::temp_directory_path() /
         ("rotor_loader_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + suffix))
            .string();
    std::ofstream(path_, std::ios::binary) << contents;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

private:
  std::string path_;
};

} // namespace rotor_test
