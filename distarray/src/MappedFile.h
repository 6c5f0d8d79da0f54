#pragma once
// A read-only memory map of a whole input file (private to distarray/src).

#include <cstddef>
#include <string>

namespace rotor::detail {

class MappedFile {
public:
  /// Maps `path`; on failure ok() is false and error() says why (no such file, a directory...).
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  /// Why the file cannot be parsed as a data file: the mapping error, "empty file", or "" when
  /// it can. Every text loader starts with this check.
  std::string unusable_reason() const { return !ok() ? error_ : size_ == 0 ? "empty file" : ""; }
  const char* data() const { return data_; }
  std::size_t size() const { return size_; }

private:
  const char* data_ = nullptr;
  std::size_t size_ = 0;
  void* map_ = nullptr;
  std::string error_;
};

} // namespace rotor::detail
