#pragma once
/// \file
/// The staged `T**` tables live on the calling thread (rotor/runtime/PointerTable.h): the byte
/// ranges of the rows they copied, so that run_loop can check that no two rows overlap and that
/// no bound array shares memory with a row, and run the loop serially on the table itself when
/// one does. Not for user code.

#include "rotor/distarray/DistArray.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace rotor::detail {

/// One staged pointer table, as run_loop sees it.
struct PointerTableRows {
  /// [begin, end) of each reached row of the user's table, in bytes, sorted by address.
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> rows;
  /// A table whose row pointers point at the staged rows during the loop (stage_object_table):
  /// [begin, end) of those row pointers, in bytes (empty otherwise). A pointer chain the
  /// inspector read there would change (rotor/runtime/ChainReads.h).
  std::pair<std::uintptr_t, std::uintptr_t> swapped_pointers{0, 0};
  /// Set when the body must use the table's own rows (the loop then runs serially): a row is
  /// null, or rows overlap each other or a bound array.
  bool in_place = false;
  /// A table whose row pointers were pointed at the staged rows (`stage_object_table`): points
  /// them back at the table's own rows. run_loop calls it, latest table first, when it sets
  /// in_place (empty for a table whose body names a local over the staged rows).
  std::function<void()> own_rows;
};

/// Memory for staged tables, kept between loops on the thread that stages them: a loop run again
/// (every sweep of a Gibbs sampler) stages the same tables again, and a fresh allocation of that
/// size is a fresh mapping that page-faults on first touch every time. take() hands out a kept
/// buffer of at least `bytes` and at most twice that, else a new one; give() keeps a buffer for the
/// next take, up to k_kept buffers and k_kept_bytes in all on the thread (the oldest go first).
/// A kept buffer's contents are whatever the last loop left: the taker zeroes what it needs.
class StagingStore {
public:
  static constexpr std::size_t k_kept = 8;
  static constexpr std::size_t k_kept_bytes = std::size_t{256} << 20;

  /// A buffer and its size in bytes.
  struct Buffer {
    std::unique_ptr<void, AlignedFree> memory;
    std::size_t bytes = 0;
  };

  static Buffer take(std::size_t bytes) {
    auto& kept = kept_value();
    for (auto it = kept.begin(); it != kept.end(); ++it) {
      if (it->bytes >= bytes && it->bytes / 2 <= bytes) {
        Buffer buffer = std::move(*it);
        kept.erase(it);
        return buffer;
      }
    }
    return {std::unique_ptr<void, AlignedFree>(aligned_alloc_bytes(bytes == 0 ? 1 : bytes)), bytes};
  }
  static void give(Buffer buffer) noexcept {
    if (!buffer.memory || buffer.bytes > k_kept_bytes) {
      return;
    }
    auto& kept = kept_value();
    try {
      kept.push_back(std::move(buffer));
    } catch (...) {
      return; // no room to keep it: freed here (a destructor calls this)
    }
    std::size_t total = kept_bytes();
    while (kept.size() > k_kept || total > k_kept_bytes) {
      total -= kept.front().bytes;
      kept.erase(kept.begin());
    }
  }
  /// The bytes kept on this thread (tests).
  static std::size_t kept_bytes() {
    std::size_t total = 0;
    for (const Buffer& b : kept_value()) {
      total += b.bytes;
    }
    return total;
  }

private:
  static std::vector<Buffer>& kept_value() {
    static thread_local std::vector<Buffer> kept;
    return kept;
  }
};

/// The staged pointer tables alive on this thread (registered by their constructor).
inline thread_local std::vector<PointerTableRows*> live_pointer_tables_value;

inline std::vector<PointerTableRows*>& live_pointer_tables() {
  return live_pointer_tables_value;
}

/// A staged `T**` table (the user's pointer) and the row length it was staged with, for
/// codegen::checked_column. Global, not per thread: the workers read it during the loop; only the
/// thread that runs the loop changes it, before the workers start and after they end.
struct CheckedTable {
  const void* table = nullptr;
  std::int64_t width = 0;
};
inline std::vector<CheckedTable> checked_tables_value;

/// Is index `i` (any integer type) outside [0, size)?
template <class I> bool outside_elements(I i, std::int64_t size) {
  if constexpr (std::is_signed_v<I>) {
    return i < 0 || static_cast<long long>(i) >= size;
  } else {
    return size < 0 || static_cast<unsigned long long>(i) >= static_cast<unsigned long long>(size);
  }
}

/// Stops the program: the column `column` of an access rotor-cc could not bound (`where`: its
/// file, line and text) lies outside the `width` elements of the rows staged for the loop.
[[noreturn]] void column_outside_row(const char* where, long long column, std::int64_t width);

/// Stops the program: the index `index` of an access rotor-cc could not bound (`where`) lies
/// outside the `size` elements of the buffered `T*` array it indexes (codegen::checked_index).
[[noreturn]] void index_outside_array(const char* where, long long index, std::int64_t size);

} // namespace rotor::detail
