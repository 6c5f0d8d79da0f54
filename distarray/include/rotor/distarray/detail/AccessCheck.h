#pragma once
/// \file
/// Not for user code (an internal header that Rotor's public headers include).
/// Hook for checked accesses. When user code is compiled with ROTOR_CHECK_ACCESS (the debug and
/// asan presets do this), every DistArray element access asks the guard that the runtime installs
/// on the worker thread while it runs a block; a stray access is a hard error naming the array,
/// the index and the plan. Without ROTOR_CHECK_ACCESS the hook compiles to nothing.

#include <cstdint>

namespace rotor::detail {

class AccessGuard {
public:
  virtual ~AccessGuard() = default;
  /// `index` has `count` entries; an entry of -1 means "the whole dimension" (row access).
  /// Must not return if the access is outside what the plan gave this worker.
  virtual void check(const void* array, const std::int64_t* index, int count, bool write) const = 0;
};

/// The guard of the block this thread is running; nullptr outside parallel loops.
const AccessGuard*& current_access_guard();

} // namespace rotor::detail

#if defined(ROTOR_CHECK_ACCESS)
#define ROTOR_DETAIL_CHECK_ACCESS(array, index, count, write)                                      \
  do {                                                                                             \
    if (const ::rotor::detail::AccessGuard* rotor_guard = ::rotor::detail::current_access_guard()) \
      rotor_guard->check(array, index, count, write);                                              \
  } while (0)
#else
#define ROTOR_DETAIL_CHECK_ACCESS(array, index, count, write) ((void)(index))
#endif
