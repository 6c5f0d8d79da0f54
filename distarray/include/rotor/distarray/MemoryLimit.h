#pragma once
/// \file
/// rotor::MemoryError and the memory a rank may use (issue 20, item 6).
///
/// Every allocation Rotor sizes from its input (a DistArray whose shape came from a Dataset's
/// extents, a histogram over a key field, the loaders' record buffers, a loop's per-worker copies)
/// is compared with the memory one rank may use *before* it is made. When it would not fit, Rotor
/// throws rotor::MemoryError with one line naming what was to be allocated, its shape and bytes,
/// the limit and, when the size came from the largest id of a loaded file, that id and its
/// FILE:LINE, instead of dying with `std::bad_alloc` or being killed by the OS.
///
/// The memory a rank may use (one definition for the whole of Rotor): `ROTOR_MEMORY_AVAILABLE`
/// (bytes) when set, else MemAvailable of /proc/meminfo divided by the ranks on this node, else the
/// machine's physical memory.

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace rotor {

/// An allocation sized by the input would exceed the memory a rank may use. what() is one line:
/// `[rank R] rotor: WHAT of shape {..} needs N bytes (..), more than the L a rank may use (..);
/// ...origin...; remedy`.
class MemoryError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

namespace detail {

/// Bytes this rank may use now (see the file comment); never 0.
double rank_memory_limit();
/// How rank_memory_limit() was found, for messages ("MemAvailable / 2 ranks on this node").
std::string rank_memory_limit_source();
/// The limit every rank agreed on (the smallest rank_memory_limit() over the ranks when the
/// Session started), so that a check on the same shape fails on every rank or on none. Without
/// one (no Session) checks use rank_memory_limit().
void set_agreed_memory_limit(double bytes);
double agreed_memory_limit();

/// Where the largest value of a key field of a loaded dataset was read.
struct KeyOrigin {
  std::uint32_t offset = 0; ///< byte offset of the field in the record
  int field = 0;            ///< field index (declaration order)
  int column = 0;           ///< 1-based column of the file, or 0
  std::int64_t max = -1;    ///< largest value over all ranks (-1: none)
  std::string file;
  std::int64_t line = 0; ///< 1-based global line of its first occurrence (0: unknown)
};

/// Remembers that an extent (largest value + 1) came from `origin` (Dataset::extent calls it);
/// extent_origin(extent) then describes it for a MemoryError ("" when unknown).
void note_extent(std::int64_t extent, const KeyOrigin& origin);
std::string extent_origin(std::int64_t extent);

/// Throws MemoryError when `elements` x `element_bytes` (the product of `shape`) exceeds the
/// agreed limit. `what` names the allocation ("DistArray<float, 2> W"). Cheap below 1 MiB.
void check_allocation(const std::string& what, const std::int64_t* shape, int dims,
                      std::size_t element_bytes);

} // namespace detail
} // namespace rotor
