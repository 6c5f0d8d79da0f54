#pragma once
/// \file
/// A buffered file writer with fast integer formatting (rotor-gen writes up to ~1.5 GB of text).

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace rotor::gen {

class TextWriter {
public:
  /// Opens `path` for writing (truncates). Throws std::runtime_error naming the file on failure.
  /// `capacity`: bytes buffered before a write to the file.
  explicit TextWriter(const std::string& path, std::size_t capacity = 1 << 20)
      : path_(path), capacity_(capacity) {
    file_ = std::fopen(path.c_str(), "wb");
    if (file_ == nullptr) {
      throw std::runtime_error("cannot open " + path + " for writing");
    }
    buffer_.reserve(capacity_ + 64);
  }
  ~TextWriter() {
    if (file_ != nullptr) {
      try {
        close();
      } catch (...) { // destructors must not throw; close() explicitly to see errors
      }
    }
  }
  TextWriter(const TextWriter&) = delete;
  TextWriter& operator=(const TextWriter&) = delete;

  void put(char c) {
    buffer_.push_back(c);
    maybe_flush();
  }
  void put(const std::string& s) {
    buffer_.append(s);
    maybe_flush();
  }
  void put_uint(std::uint64_t v) {
    char tmp[24];
    int n = 0;
    do {
      tmp[n++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v != 0);
    while (n > 0) {
      buffer_.push_back(tmp[--n]);
    }
    maybe_flush();
  }
  /// Writes `v` with exactly `decimals` decimals (rounded half away from zero).
  void put_fixed(double v, int decimals) {
    if (v < 0) {
      buffer_.push_back('-');
      v = -v;
    }
    std::uint64_t scale = 1;
    for (int i = 0; i < decimals; ++i) {
      scale *= 10;
    }
    const auto scaled = static_cast<std::uint64_t>(v * static_cast<double>(scale) + 0.5);
    put_uint(scaled / scale);
    if (decimals > 0) {
      buffer_.push_back('.');
      std::uint64_t frac = scaled % scale;
      for (std::uint64_t d = scale / 10; d > 0; d /= 10) {
        buffer_.push_back(static_cast<char>('0' + frac / d));
        frac %= d;
      }
    }
    maybe_flush();
  }
  /// Appends raw bytes (binary records).
  void put_bytes(const void* data, std::size_t bytes) {
    buffer_.append(static_cast<const char*>(data), bytes);
    maybe_flush();
  }
  void flush() {
    if (!buffer_.empty()) {
      if (std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) {
        throw std::runtime_error("write failed on " + path_ + " (disk full?)");
      }
      buffer_.clear();
    }
  }
  void close() {
    flush();
    FILE* f = file_;
    file_ = nullptr;
    if (std::fclose(f) != 0) {
      throw std::runtime_error("closing " + path_ + " failed");
    }
  }

private:
  void maybe_flush() {
    if (buffer_.size() >= capacity_) {
      flush();
    }
  }
  std::string path_;
  std::size_t capacity_;
  FILE* file_ = nullptr;
  std::string buffer_;
};

} // namespace rotor::gen
