#pragma once
/// \file
/// Memory the record exchange gives back to the system as it goes (runtime/src/Layout.cpp):
/// page-backed buffers whose pages leave the process when they are destroyed, whatever malloc's
/// thresholds are at that moment, and release_pages (declared in detail/Engine.h) for the
/// storage of records that were sent.

#include <cstddef>

namespace rotor::detail {

/// `bytes` of zeroed memory in their own anonymous mapping, unmapped on destruction (freed heap
/// memory may stay resident; a rank's peak is what issue 3 bounds).
class PageBuffer {
public:
  explicit PageBuffer(std::size_t bytes);
  PageBuffer(PageBuffer&& other) noexcept;
  PageBuffer& operator=(PageBuffer&& other) noexcept;
  PageBuffer(const PageBuffer&) = delete;
  PageBuffer& operator=(const PageBuffer&) = delete;
  ~PageBuffer();
  char* data() const { return data_; }
  std::size_t size() const { return bytes_; }

private:
  void reset();
  char* data_ = nullptr;
  std::size_t bytes_ = 0;
};

/// Returns the heap's free memory to the system (after a layout's temporaries are freed).
void trim_heap();

} // namespace rotor::detail
