#pragma once
/// \file
/// The staged `T**` tables live on the calling thread (rotor/runtime/PointerTable.h): the byte
/// ranges of the rows they copied, so that run_loop can check that no two rows overlap and that
/// no bound array shares memory with a row, and run the loop serially on the table itself when
/// one does. Not for user code.

#include <cstdint>
#include <functional>
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
