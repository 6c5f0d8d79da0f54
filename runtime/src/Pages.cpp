#include "Pages.h"

#include "rotor/runtime/detail/Engine.h"

#include <cstdint>
#include <new>
#include <utility>

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

namespace rotor::detail {
namespace {

std::uintptr_t page_bytes() {
  static const auto p = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  return p;
}

} // namespace

PageBuffer::PageBuffer(std::size_t bytes) : bytes_(bytes) {
  if (bytes == 0) {
    return;
  }
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    throw std::bad_alloc();
  }
  data_ = static_cast<char*>(p);
}

PageBuffer::PageBuffer(PageBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

PageBuffer& PageBuffer::operator=(PageBuffer&& other) noexcept {
  if (this != &other) {
    reset();
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

PageBuffer::~PageBuffer() {
  reset();
}

void PageBuffer::reset() {
  if (data_) {
    munmap(data_, bytes_);
  }
  data_ = nullptr;
  bytes_ = 0;
}

char* release_pages(char* from, char* to) {
  const std::uintptr_t p = page_bytes();
  const std::uintptr_t first = (reinterpret_cast<std::uintptr_t>(from) + p - 1) / p * p;
  const std::uintptr_t last = reinterpret_cast<std::uintptr_t>(to) / p * p;
  if (last <= first) {
    return from;
  }
  // MADV_DONTNEED on private anonymous memory: the pages leave the process and read as zeros
  // if touched again; the allocation itself stays valid (its owner frees it as usual)
  madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
  return reinterpret_cast<char*>(last);
}

void trim_heap() {
  malloc_trim(0);
}

} // namespace rotor::detail
