#pragma once
/// \file
/// How rotor-cc hands a plain container (std::vector, std::array, Eigen::Matrix) to the runtime
/// (namespace rotor::codegen): a DistArray that views the container's memory in place, so the
/// executors see an ordinary DistArray and move its blocks straight into the container.
/// docs/design/containers.md has the design.
///
/// \code
///   // before (user code)                      // after (rotor-cc output)
///   std::vector<float> W(users * k);           {
///   #pragma rotor parallel_for                   auto rotor_view_W =
///   for (const Rating& r : ratings)                  ::rotor::codegen::adopt_rows(W, k);
///     for (int j = 0; j < k; ++j)                ::rotor::codegen::run_loop(..., std::tie(
///       W[r.user * k + j] += r.value;                rotor_view_W), ..., [&](const Rating& r,
///                                                    auto& /*W*/) { ...body unchanged... });
///                                                }
/// \endcode
///
/// The body keeps naming the container itself: its elements are the view's elements. The
/// frontend binds a container only when the plan is not serial and the body uses it only through
/// subscripts and size queries, so the container is never resized while the view lives.
///
/// A buffered container (`buffered(w)`, docs/design/containers.md "Buffered containers") is bound
/// the same way, but each worker writes its own buffer of the view (a dense DistArray copy or a
/// SparseBuffer): the body's name then stands for a BufferedElements over that buffer, and the
/// merge writes the summed changes back into the container's memory.

#include "rotor/distarray/DistArray.h"
#include "rotor/runtime/detail/ChainReadRanges.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace rotor::codegen {

/// `v` as rows of `row_length` elements (row r is v[r * row_length ... + row_length)): a
/// DistArray<T, 2> of v.size() / row_length rows over v's memory (a shorter last row is left out:
/// the frontend proved every subscript is below row_length, so the body never reaches it through
/// a row it does not hold in full). A row length below 1 gives an empty view (the body's
/// subscripts `key * row_length + j` with 0 <= j < row_length name no element then).
template <class T, class Alloc>
DistArray<T, 2> adopt_rows(std::vector<T, Alloc>& v, std::int64_t row_length) {
  const std::int64_t size = static_cast<std::int64_t>(v.size());
  if (row_length < 1) {
    return DistArray<T, 2>::adopt(v.data(), {0, 0});
  }
  return DistArray<T, 2>::adopt(v.data(), {size / row_length, row_length});
}

/// The same for a std::array.
template <class T, std::size_t N>
DistArray<T, 2> adopt_rows(std::array<T, N>& a, std::int64_t row_length) {
  const std::int64_t size = static_cast<std::int64_t>(N);
  if (row_length < 1) {
    return DistArray<T, 2>::adopt(a.data(), {0, 0});
  }
  return DistArray<T, 2>::adopt(a.data(), {size / row_length, row_length});
}

/// What the body's name of a buffered plain container stands for: `w[i]` is element i of the
/// container in the worker's buffer of its view (rows of `cols()` elements; element i is (i /
/// cols, i % cols)), `w.size()` the container's size when the loop started. The frontend proved
/// the body names the container only by subscript and size queries, in the body itself.
template <class Buffer> class BufferedElements {
public:
  using value_type = typename Buffer::value_type;

  BufferedElements(Buffer& buffer, std::size_t size)
      : buffer_(buffer), cols_(buffer.size() == 0 ? 1 : buffer.cols()), size_(size),
        dense_(dense_elements(buffer)) {}

  value_type& operator[](std::int64_t i) const {
#if defined(ROTOR_CHECK_ACCESS)
    if (i < 0 || i >= buffer_.size()) {
      throw std::logic_error("rotor: buffered container subscript " + std::to_string(i) +
                             " is outside its " + std::to_string(buffer_.size()) +
                             " buffered elements");
    }
#endif
    if constexpr (std::is_same_v<Buffer, DistArray<value_type, 2>>) {
      return dense_[i]; // a dense copy: the container's layout
    } else if (cols_ == 1) {
      return buffer_(i, 0);
    } else {
      return buffer_(i / cols_, i % cols_);
    }
  }
  std::size_t size() const {
    return size_;
  }
  bool empty() const {
    return size_ == 0;
  }

private:
  /// A dense buffer's elements, read once here: the body's stores cannot make the compiler reload
  /// them through the buffer object.
  static value_type* dense_elements(Buffer& buffer) {
    if constexpr (std::is_same_v<Buffer, DistArray<value_type, 2>>) {
      return buffer.data();
    } else {
      return nullptr;
    }
  }

  Buffer& buffer_;
  std::int64_t cols_;
  std::size_t size_;
  value_type* dense_;
};

/// The body's name of buffered container: BufferedElements over the worker's buffer `buffer`.
template <class Buffer>
BufferedElements<Buffer> buffered_elements(Buffer& buffer, std::size_t size) {
  return BufferedElements<Buffer>(buffer, size);
}

/// An Eigen::Matrix in the frontend's coordinates (docs/design/containers.md): a row-major matrix
/// as (rows, cols), a column-major one as (cols, rows) (its memory is that row-major array), a
/// vector as (size, 1).
template <class T, int R, int C, int O, int MR, int MC>
DistArray<T, 2> adopt_matrix(Eigen::Matrix<T, R, C, O, MR, MC>& m) {
  if constexpr (R == 1 || C == 1) {
    return DistArray<T, 2>::adopt(m.data(), {static_cast<std::int64_t>(m.size()), 1});
  } else if constexpr ((O & Eigen::RowMajor) != 0) {
    return DistArray<T, 2>::adopt(m.data(), {m.rows(), m.cols()});
  } else {
    return DistArray<T, 2>::adopt(m.data(), {m.cols(), m.rows()});
  }
}

/// One row of a staged table as the body sees it: `row[k]` is element k of the staged row,
/// `row.size()` the length of the table's row when it was staged.
template <class T> class StagedRow {
public:
  StagedRow(T* data, std::int64_t length) : data_(data), length_(length) {}
  T& operator[](std::int64_t k) const {
#if defined(ROTOR_CHECK_ACCESS)
    if (k < 0 || k >= length_) {
      throw std::logic_error("rotor: table row subscript " + std::to_string(k) +
                             " is outside its row of " + std::to_string(length_) + " elements");
    }
#endif
    return data_[k];
  }
  std::size_t size() const {
    return static_cast<std::size_t>(length_);
  }
  bool empty() const {
    return length_ == 0;
  }

private:
  T* data_;
  std::int64_t length_;
};

/// A `std::vector<std::vector<T>>` copied into one contiguous DistArray<T, 2> of (rows, longest
/// row) for the length of one loop (docs/design/containers.md, "Tables"): its rows are separate
/// allocations, so no view of them is one DistArray. The executors move the staged array like any
/// DistArray; the body names the table through `rows(staged)` (a StagedRows: `t[r][k]`,
/// `t[r].size()`, `t.size()`), and the destructor copies every row back into the table (every
/// rank's staged array is whole and equal when the loop ends, so every rank's table is too).
/// Cost: one copy in and one copy out of the table per loop, and rows x longest row elements of
/// memory (a ragged table pays its padding).
template <class T, class RowAlloc, class Alloc> class StagedTable {
public:
  using Table = std::vector<std::vector<T, RowAlloc>, Alloc>;
  explicit StagedTable(Table& table) : table_(table) {
    auto& live = detail_staged_tables();
    for (const auto& [address, staged] : live) {
      if (address == &table) { // the same table under a second name: share the first staging
        leader_ = static_cast<StagedTable*>(staged);
        return;
      }
    }
    lengths_.resize(table.size());
    std::int64_t width = 0;
    for (std::size_t r = 0; r < table.size(); ++r) {
      lengths_[r] = static_cast<std::int64_t>(table[r].size());
      width = std::max(width, lengths_[r]);
    }
    staged_ = DistArray<T, 2>({static_cast<std::int64_t>(table.size()), width}, "staged table");
    for (std::size_t r = 0; r < table.size(); ++r) {
      std::copy(table[r].begin(), table[r].end(), staged_.data() + r * width);
      originals_.add(table[r].data(), table[r].size() * sizeof(T)); // ChainReads.h checks them
    }
    live.emplace_back(&table, this);
  }
  ~StagedTable() {
    if (leader_ != nullptr) {
      return;
    }
    auto& live = detail_staged_tables();
    live.erase(std::remove_if(live.begin(), live.end(),
                              [&](const auto& entry) { return entry.second == this; }),
               live.end());
    const std::int64_t width = staged_.cols();
    for (std::size_t r = 0; r < table_.size() && r < lengths_.size(); ++r) {
      const T* row = staged_.data() + r * width;
      std::copy(row, row + lengths_[r], table_[r].begin());
    }
  }
  StagedTable(const StagedTable&) = delete;
  StagedTable& operator=(const StagedTable&) = delete;

  /// The array the runtime gets (bound in the loop's array tuple). A table bound under two names
  /// (two reference parameters to one table) gives both the same array: the runtime sees one
  /// array bound twice and runs the loop serially.
  DistArray<T, 2>& array() { return leader_ != nullptr ? leader_->staged_ : staged_; }
  const std::vector<std::int64_t>& lengths() const {
    return leader_ != nullptr ? leader_->lengths_ : lengths_;
  }

private:
  /// The tables staged on this thread now (table address, its StagedTable).
  static std::vector<std::pair<const void*, void*>>& detail_staged_tables() {
    static thread_local std::vector<std::pair<const void*, void*>> live;
    return live;
  }

  Table& table_;
  StagedTable* leader_ = nullptr; ///< the first staging of the same table, if any
  std::vector<std::int64_t> lengths_;
  DistArray<T, 2> staged_;
  detail::WrittenOriginals originals_; ///< the table's own rows, written back after the loop
};

/// What the body's name of a staged table stands for: row r of the array the body got (the
/// executor's DistArray, which is the staged array itself: tables are never buffered).
template <class T> class StagedRows {
public:
  StagedRows(DistArray<T, 2>& array, const std::vector<std::int64_t>& lengths)
      : array_(array), lengths_(lengths) {}
  StagedRow<T> operator[](std::int64_t r) const {
    return StagedRow<T>(array_.data() + r * array_.cols(), lengths_[static_cast<std::size_t>(r)]);
  }
  std::size_t size() const { return lengths_.size(); }
  bool empty() const { return lengths_.empty(); }

private:
  DistArray<T, 2>& array_;
  const std::vector<std::int64_t>& lengths_;
};

/// `std::vector<std::vector<T>>` staged for one loop (rotor-cc's binding of a written table).
template <class T, class RowAlloc, class Alloc>
StagedTable<T, RowAlloc, Alloc> stage_table(std::vector<std::vector<T, RowAlloc>, Alloc>& table) {
  return StagedTable<T, RowAlloc, Alloc>(table);
}

/// The body's view of staged table `staged` through the array the executor gave it.
template <class T, class RowAlloc, class Alloc>
StagedRows<T> staged_rows(const StagedTable<T, RowAlloc, Alloc>& staged, DistArray<T, 2>& array) {
  return StagedRows<T>(array, staged.lengths());
}

} // namespace rotor::codegen
