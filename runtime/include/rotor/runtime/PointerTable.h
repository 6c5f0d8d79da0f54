#pragma once
/// \file
/// How rotor-cc hands a raw pointer table to the runtime (namespace rotor::codegen;
/// docs/design/containers.md, "Pointer tables"). A pointer says nothing of its extent, so the
/// frontend bounds it from the loop's accesses, each made in every iteration: the row length is a
/// stride or a column loop's bound, and the rows are those the records' keys (plus a number) or
/// constants name, counted here from the Dataset:
///
/// \code
///   // before (user code)                      // after (rotor-cc output, abridged)
///   void epoch(Dataset<Rating>& ratings,        {
///              float* W, int** nw, int K) {       auto rotor_view_W = adopt_pointer_rows(W, K,
///   #pragma rotor parallel_for                        {rows_of_key(ratings, &Rating::user, 0)});
///     for (const Rating& r : ratings)             auto rotor_view_nw = stage_pointer_table(nw, K,
///       for (int k = 0; k < K; ++k) {                 {rows_of_key(ratings, &Rating::item, 0)});
///         W[r.user * K + k] += 1;                 run_loop(..., [&](const Rating& r, auto&,
///         nw[r.item][k] += 1;                         auto& rotor_table_nw) {
///       }                                           auto nw = staged_rows(rotor_view_nw,
///   }                                                   rotor_table_nw); ...body unchanged...
/// \endcode
///
/// A `T*` table is one allocation: adopt_pointer_rows views it in place, like a std::vector. The
/// rows of a `T**` table are separate allocations, so stage_pointer_table copies the reached rows
/// into one contiguous DistArray for the loop and back after it (as StagedTable does for a
/// std::vector<std::vector<T>>); run_loop checks that no two reached rows overlap and that no
/// bound array shares their memory, and otherwise runs the loop serially on the table's own rows.

#include "rotor/distarray/Dataset.h"
#include "rotor/distarray/DistArray.h"
#include "rotor/distarray/detail/Collective.h"
#include "rotor/distarray/detail/DatasetInternals.h"
#include "rotor/runtime/ContainerView.h"
#include "rotor/runtime/Inspector.h"
#include "rotor/runtime/detail/PointerTables.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <type_traits>
#include <utility>
#include <vector>

namespace rotor::codegen {

/// The rows one access of the loop names: one more than the largest (`rows`), and which ones
/// (`mark` sets reached[r] for each row r it names, r < rows).
struct RowReach {
  std::int64_t rows = 0;
  std::function<void(std::vector<char>& reached)> mark;
};

/// Sets reached[v + offset] for every value v that `counts` (records per value) counts.
inline void mark_counted_rows(const std::vector<std::int64_t>& counts, std::int64_t offset,
                              std::vector<char>& reached) {
  for (std::size_t v = 0; v < counts.size(); ++v) {
    const std::int64_t row = static_cast<std::int64_t>(v) + offset;
    if (counts[v] > 0 && row >= 0 && row < static_cast<std::int64_t>(reached.size())) {
      reached[static_cast<std::size_t>(row)] = 1;
    }
  }
}

/// The rows `key + offset` names over the records of `data` (all ranks; collective).
template <class R, class F>
RowReach rows_of_key(const Dataset<R>& data, F R::*key, std::int64_t offset) {
  RowReach reach;
  reach.rows = std::max<std::int64_t>(0, data.extent(key) + offset);
  reach.mark = [&data, key, offset](std::vector<char>& reached) {
    mark_counted_rows(data.histogram(key), offset, reached);
  };
  return reach;
}

/// The same over the iterations of an inspected loop, from the histogram its inspection keeps
/// while the keys do not change (Inspection::histogram).
template <int N>
RowReach rows_of_key(Inspection<N>& inspection, std::int64_t Iteration<N>::*key,
                     std::int64_t offset) {
  const std::vector<std::int64_t>& counts = inspection.histogram(key);
  RowReach reach;
  reach.rows = std::max<std::int64_t>(0, static_cast<std::int64_t>(counts.size()) + offset);
  reach.mark = [&counts, offset](std::vector<char>& reached) {
    mark_counted_rows(counts, offset, reached);
  };
  return reach;
}

/// Row `row` (a constant subscript).
inline RowReach rows_of_constant(std::int64_t row) {
  RowReach reach;
  reach.rows = row + 1;
  reach.mark = [row](std::vector<char>& reached) {
    if (row >= 0 && row < static_cast<std::int64_t>(reached.size())) {
      reached[static_cast<std::size_t>(row)] = 1;
    }
  };
  return reach;
}

inline std::int64_t rows_reached(std::initializer_list<RowReach> reach) {
  std::int64_t rows = 0;
  for (const RowReach& r : reach) {
    rows = std::max(rows, r.rows);
  }
  return rows;
}

/// `T* p` as rows of `row_length` elements, as many as the loop reaches: a DistArray<T, 2> over
/// p's memory (no copy; every element of it is one the serial loop touches or lies between two
/// it touches, inside the one array p points into).
template <class T>
DistArray<T, 2> adopt_pointer_rows(T* p, std::int64_t row_length,
                                   std::initializer_list<RowReach> reach) {
  const std::int64_t rows = rows_reached(reach);
  if (row_length < 1 || rows < 1) {
    return DistArray<T, 2>::adopt(p, {0, 0});
  }
  return DistArray<T, 2>::adopt(p, {rows, row_length});
}

/// A `T** table` whose reached rows have `row_length` elements each (or, for a ragged table, each
/// its own length), copied into one contiguous DistArray<T, 2> of (rows, longest row) for the
/// length of one loop and back after it on every rank (rows the loop does not reach are neither
/// read nor written: zero in the copy, as is the rest of a shorter row). Cost: one copy of the
/// reached rows in and one out per loop, rows x longest row elements of memory, and a histogram
/// of each key field naming rows (an allreduce of its extent across ranks).
template <class T> class StagedPointerTable {
public:
  /// `swap`: point the table's reached rows at the staged rows until the destructor (or until
  /// run_loop runs the loop in place), so that code the body calls, which names the table
  /// itself (`this->m[i][j]` in a method), writes the staged copy (stage_object_table).
  StagedPointerTable(T** table, std::int64_t row_length, std::initializer_list<RowReach> reach,
                     bool swap = false)
      : StagedPointerTable(table, uniform_lengths(row_length, reach), swap) {}
  /// Row r has `lengths[r]` elements, 0 for a row the loop does not reach.
  StagedPointerTable(T** table, std::vector<std::int64_t> lengths, bool swap)
      : table_(table), lengths_(std::move(lengths)) {
    for (const std::int64_t length : lengths_) {
      width_ = std::max(width_, length);
    }
    stage_memory();
    for (std::size_t r = 0; r < lengths_.size(); ++r) {
      if (lengths_[r] <= 0) {
        continue;
      }
      const T* row = table_[r];
      if (row == nullptr) {
        live_.in_place = true; // the serial program would fail here too: leave it to the body
        continue;
      }
      std::copy(row, row + lengths_[r], staged_row(r));
      const auto begin = reinterpret_cast<std::uintptr_t>(row);
      live_.rows.emplace_back(begin, begin + static_cast<std::uintptr_t>(lengths_[r]) * sizeof(T));
    }
    if (swap && !live_.in_place) {
      own_.assign(lengths_.size(), nullptr);
      live_.own_rows = [this] { restore_own_rows(); };
      const auto slots = reinterpret_cast<std::uintptr_t>(table_);
      live_.swapped_pointers = {slots, slots + lengths_.size() * sizeof(T*)};
    }
    // Sorted once here: run_loop merges them into two sorted lists (rows come from separate
    // allocations, nearly but not always in address order).
    if (!std::is_sorted(live_.rows.begin(), live_.rows.end())) {
      std::sort(live_.rows.begin(), live_.rows.end());
    }
    detail::live_pointer_tables().push_back(&live_);
    detail::checked_tables_value.push_back({table_, width_});
    if (!own_.empty()) {
      point_at_staged_rows(); // last, and cannot throw: the destructor puts the rows back
    }
  }
  ~StagedPointerTable() {
    auto& live = detail::live_pointer_tables();
    live.erase(std::remove(live.begin(), live.end(), &live_), live.end());
    auto& checked = detail::checked_tables_value;
    checked.erase(
        std::remove_if(checked.begin(), checked.end(),
                       [this](const detail::CheckedTable& c) { return c.table == table_; }),
        checked.end());
    if (live_.in_place) {
      return; // the body wrote the table itself (a swapped table got its rows back then)
    }
    if (!own_.empty()) {
      restore_own_rows();
    }
    for (std::size_t r = 0; r < lengths_.size(); ++r) {
      if (lengths_[r] > 0 && table_[r] != nullptr) {
        const T* row = staged_row(r);
        std::copy(row, row + lengths_[r], table_[r]);
      }
    }
    detail::StagingStore::give(std::move(memory_));
  }
  StagedPointerTable(const StagedPointerTable&) = delete;
  StagedPointerTable& operator=(const StagedPointerTable&) = delete;

  /// The array the runtime gets (bound in the loop's array tuple).
  DistArray<T, 2>& array() { return staged_; }
  /// Row r as the body sees it: in the array the executor gave it, or the table's own row when
  /// run_loop chose to run in place (serially).
  T* row(DistArray<T, 2>& given, std::int64_t r) const {
    return live_.in_place ? table_[r] : given.data() + r * given.cols();
  }
  /// The row length the table was staged with (the longest row's).
  std::int64_t width() const { return width_; }

private:
  /// `row_length` for each row an access in `reach` names, 0 for the others.
  static std::vector<std::int64_t> uniform_lengths(std::int64_t row_length,
                                                   std::initializer_list<RowReach> reach) {
    std::vector<char> reached(
        static_cast<std::size_t>(std::max<std::int64_t>(rows_reached(reach), 0)), 0);
    for (const RowReach& r : reach) {
      r.mark(reached);
    }
    std::vector<std::int64_t> lengths(reached.size(), 0);
    for (std::size_t r = 0; r < reached.size(); ++r) {
      lengths[r] = reached[r] != 0 ? std::max<std::int64_t>(row_length, 0) : 0;
    }
    return lengths;
  }
  /// staged_: zeroed rows x width_ elements, in memory kept from an earlier loop on this thread
  /// when there is such (detail::StagingStore), checked against the memory limit as a DistArray.
  void stage_memory() {
    const std::array<std::int64_t, 2> shape{static_cast<std::int64_t>(lengths_.size()), width_};
    detail::check_array_allocation(detail::element_type_of<T>(), 2, shape.data(), sizeof(T),
                                   "staged pointer table");
    const std::size_t bytes = static_cast<std::size_t>(shape[0] * shape[1]) * sizeof(T);
    if (bytes == 0) {
      staged_ = DistArray<T, 2>(shape);
      return;
    }
    memory_ = detail::StagingStore::take(bytes);
    std::memset(memory_.memory.get(), 0, bytes);
    staged_ = DistArray<T, 2>::adopt(static_cast<T*>(memory_.memory.get()), shape);
  }
  T* staged_row(std::size_t r) { return staged_.data() + static_cast<std::int64_t>(r) * width_; }
  /// Each reached row's pointer now points at its staged row; own_ keeps the table's own.
  void point_at_staged_rows() {
    for (std::size_t r = 0; r < lengths_.size(); ++r) {
      if (lengths_[r] > 0) {
        own_[r] = table_[r];
        table_[r] = staged_row(r);
      }
    }
  }
  void restore_own_rows() {
    for (std::size_t r = 0; r < own_.size(); ++r) {
      if (own_[r] != nullptr) {
        table_[r] = own_[r];
      }
    }
    own_.clear();
  }

  T** table_;
  std::vector<std::int64_t> lengths_; ///< each row's staged length (0: not reached)
  std::int64_t width_ = 0;
  detail::StagingStore::Buffer memory_; ///< staged_'s memory (StagingStore)
  DistArray<T, 2> staged_;              ///< a view of memory_
  std::vector<T*> own_;                 ///< swapped: the table's own row pointers, to put back
  detail::PointerTableRows live_;
};

/// Stops the program when `column` is not in [0, width) (checked_column).
template <class I> void check_column_in_row(I column, std::int64_t width, const char* where) {
  if (detail::outside_elements(column, width)) {
    detail::column_outside_row(where, static_cast<long long>(column), width);
  }
}

/// What the body's name of a staged `T**` table stands for: `t[r]` is row r's pointer.
template <class T> class PointerRows {
public:
  PointerRows(const StagedPointerTable<T>& staged, DistArray<T, 2>& array)
      : staged_(staged), array_(array) {}
  T* operator[](std::int64_t r) const { return staged_.row(array_, r); }
  std::int64_t width() const { return staged_.width(); }

private:
  const StagedPointerTable<T>& staged_;
  DistArray<T, 2>& array_;
};

/// `T** table` staged for one loop (rotor-cc's binding of a written pointer table).
template <class T>
StagedPointerTable<T> stage_pointer_table(T** table, std::int64_t row_length,
                                          std::initializer_list<RowReach> reach) {
  return StagedPointerTable<T>(table, row_length, reach);
}

/// `T** table` of an object the body reaches through a member pointer, a member object or a
/// variable (`this->p->m`, used in p's methods), staged for one loop with its reached rows
/// pointed at the staged rows: the methods keep naming the table, and write the copy the
/// executors run on (docs/design/containers.md, "Tables inside another object").
template <class T>
StagedPointerTable<T> stage_object_table(T** table, std::int64_t row_length,
                                         std::initializer_list<RowReach> reach) {
  return StagedPointerTable<T>(table, row_length, reach, true);
}

/// `T** table` accessed `t[d][n]` in a ragged nest inspected by `inspection` (the serial loop
/// touches elements 0 .. count(d) - 1 of each row d it reaches, in every iteration), staged for
/// one loop with row d's own length count(d), Inspection::ragged_row_lengths
/// (docs/design/containers.md, "Ragged rows of a T** table").
template <class T, int N>
StagedPointerTable<T> stage_ragged_pointer_table(T** table, Inspection<N>& inspection) {
  return StagedPointerTable<T>(table, inspection.ragged_row_lengths(), false);
}

/// The same for a table the body's helpers name (`this->z[m][n]` in a method): its reached rows
/// are pointed at the staged rows, as stage_object_table does.
template <class T, int N>
StagedPointerTable<T> stage_ragged_object_table(T** table, Inspection<N>& inspection) {
  return StagedPointerTable<T>(table, inspection.ragged_row_lengths(), true);
}

/// The body's view of staged pointer table `staged` through the array the executor gave it.
template <class T>
PointerRows<T> staged_rows(const StagedPointerTable<T>& staged, DistArray<T, 2>& array) {
  return PointerRows<T>(staged, array);
}

/// A column `t[r][column]` rotor-cc could not bound before the loop (docs/design/containers.md,
/// "Checked columns"): rotor-cc writes the access as `t[r][checked_column(t, column, where)]`.
/// While a loop runs on a staged copy of `t`, a column outside the staged rows' length stops the
/// program with `where` and the value (the staged rows are only that long, so the access would
/// reach another row); outside such a loop the column passes unchecked.
template <class T, class I> I checked_column(T* const* table, I column, const char* where) {
  static_assert(std::is_integral_v<I>, "checked_column: the column must be an integer");
  for (const detail::CheckedTable& t : detail::checked_tables_value) {
    if (t.table == static_cast<const void*>(table)) {
      check_column_in_row(column, t.width, where);
      break;
    }
  }
  return column;
}

/// The same inside the loop's body lambda, where rotor-cc names the staged table itself (a
/// helper's clone checking a table whose row pointers point at the staged rows): no lookup.
template <class T, class I>
I checked_column(const StagedPointerTable<T>& staged, I column, const char* where) {
  static_assert(std::is_integral_v<I>, "checked_column: the column must be an integer");
  check_column_in_row(column, staged.width(), where);
  return column;
}

/// The same for the body's local name of a staged table (its rows are always the staged ones).
template <class T, class I>
I checked_column(const PointerRows<T>& rows, I column, const char* where) {
  static_assert(std::is_integral_v<I>, "checked_column: the column must be an integer");
  check_column_in_row(column, rows.width(), where);
  return column;
}

/// An index `p[index]` of a buffered or private `T*` used as one array that rotor-cc could not
/// bound before the loop (docs/design/containers.md, "Checked columns"): rotor-cc writes the
/// access as `p[checked_index(p, index, where)]`. Inside the loop `p` names the worker's buffer
/// (BufferedElements) or copy (a StagedRow over it), only as long as the loop's other accesses
/// prove the array is: an index outside it stops the program with `where` and the value.
template <class Elements, class I>
I checked_index(const Elements& elements, I index, const char* where) {
  static_assert(std::is_integral_v<I>, "checked_index: the index must be an integer");
  const auto size = static_cast<std::int64_t>(elements.size());
  if (detail::outside_elements(index, size)) {
    detail::index_outside_array(where, static_cast<long long>(index), size);
  }
  return index;
}

/// The same access outside the loop (serial code calling the same helper): the program's own
/// pointer, unchecked.
template <class T, class I> I checked_index(T* /*array*/, I index, const char* /*where*/) {
  static_assert(std::is_integral_v<I>, "checked_index: the index must be an integer");
  return index;
}

} // namespace rotor::codegen
