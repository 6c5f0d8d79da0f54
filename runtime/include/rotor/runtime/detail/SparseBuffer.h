#pragma once
/// \file
/// rotor::detail::SparseBuffer<T, N> (not for user code): a worker's private buffer of a buffered
/// array that holds only the rows the worker touched, in a flat open-addressing hash map
/// (docs/design/buffered.md, "Worker buffers"). The loop body gets it in place of a dense DistArray
/// copy when the array is large and workers touch a small fraction of it; it offers the element
/// interface a parallel loop body may use (`w[i]`, `w(i, j)`, `w.row(i)`, `size()`, `shape()`,
/// `extent()`, `rows()`, `cols()`). Reads of untouched rows come from the shared array; the first
/// access to a row copies it in (value and base), so the worker sees its own pending updates and
/// the merge takes `value - base`.
///
/// A row is the element for 1-D arrays and the first index's slice otherwise (Bösen's row-oriented
/// tables): `w.row(i)` is then a contiguous Eigen map, as on a DistArray.

#include "rotor/distarray/DistArray.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace rotor::detail {

/// Reads one element of the shared array. In flush mode the merger thread writes the array while
/// workers copy untouched rows in (their SSP view may mix rounds, as Bösen's process cache does),
/// so both sides use relaxed atomic accesses; on x86 these are plain moves.
template <class T> T load_shared(const T* p) {
  T v;
  __atomic_load(p, &v, __ATOMIC_RELAXED);
  return v;
}
template <class T> void store_shared(T* p, T v) {
  __atomic_store(p, &v, __ATOMIC_RELAXED);
}

/// The rows of a sparse worker buffer, independent of the array's rank: what the merge
/// (runtime/src/BufferedMerge.cpp, compiled once per element type) reads and rewrites.
template <class T> class SparseRows {
public:
  SparseRows(const T* shared, std::int64_t width) : shared_(shared), width_(width) {
    rehash(k_initial_capacity);
  }
  SparseRows(const SparseRows&) = delete;
  SparseRows& operator=(const SparseRows&) = delete;

  // -- the merge's side --------------------------------------------------------------------------
  std::int64_t width() const { return width_; }
  /// Rows touched since the last clear(), in first-touch order.
  std::size_t touched() const { return keys_.size(); }
  std::int64_t key(std::size_t k) const { return keys_[k]; }
  T* value(std::size_t k) { return slot(k); }
  const T* base(std::size_t k) const { return slot(k) + width_; }
  /// The worker's changes become its view's starting point (after a flush's refresh).
  void rebase() {
    for (std::size_t k = 0; k < keys_.size(); ++k) {
      std::copy(slot(k), slot(k) + width_, slot(k) + width_);
    }
  }
  /// Forgets every row (keeps the memory for the next flush interval).
  void clear() {
    std::fill(table_.begin(), table_.end(), 0);
    keys_.clear();
    last_key_ = -1;
  }
  /// Bytes held: table, key list and row storage (value and base per row).
  std::size_t bytes() const {
    return table_.size() * sizeof(Entry) + keys_.capacity() * sizeof(std::int64_t) +
           chunks_.size() * chunk_rows() * 2 * static_cast<std::size_t>(width_) * sizeof(T);
  }
  /// The row `key` (copied in from the shared array on first touch).
  T* row_data(std::int64_t key) {
    if (key == last_key_) { // `w[i] -= lr * w[i]` looks the same row up twice
      return last_row_;
    }
    std::size_t h = hash(key);
    for (;; h = (h + 1) & mask_) {
      const std::uint32_t e = table_[h];
      if (e == 0) {
        return remember(key, insert(h, key));
      }
      if (keys_[e - 1] == key) {
        return remember(key, slot(e - 1));
      }
    }
  }

private:
  /// A table slot: 0 empty, else the row's position + 1 (its key is keys_[position]); 4 bytes
  /// per slot keep the table small next to the rows it indexes.
  using Entry = std::uint32_t;
  static constexpr std::size_t k_initial_capacity = 1024;

  std::size_t chunk_rows() const {
    return std::max<std::size_t>(1, 4096 / static_cast<std::size_t>(width_));
  }
  // Rows live in fixed-size chunks that never move, so a reference the body holds stays valid
  // while other rows are added (`T& a = w[i]; a += w[j];`); growing rehashes only the table.
  T* slot(std::size_t k) const {
    const std::size_t per = chunk_rows();
    return chunks_[k / per].get() + (k % per) * 2 * static_cast<std::size_t>(width_);
  }
  std::size_t hash(std::int64_t key) const {
    return static_cast<std::size_t>((static_cast<std::uint64_t>(key) * 0x9E3779B97F4A7C15ull) >>
                                    shift_);
  }
  T* remember(std::int64_t key, T* row) {
    last_key_ = key;
    last_row_ = row;
    return row;
  }
  T* insert(std::size_t h, std::int64_t key) {
    const std::size_t k = keys_.size();
    if (k == chunks_.size() * chunk_rows()) {
      chunks_.emplace_back(new T[chunk_rows() * 2 * static_cast<std::size_t>(width_)]);
    }
    table_[h] = static_cast<Entry>(k + 1);
    keys_.push_back(key);
    T* row = slot(k);
    const T* from = shared_ + key * width_;
    for (std::int64_t j = 0; j < width_; ++j) {
      row[j] = row[width_ + j] = load_shared(from + j);
    }
    if (2 * keys_.size() > table_.size()) { // load factor <= 1/2: short probe runs
      rehash(2 * table_.size());
    }
    return row;
  }
  void rehash(std::size_t capacity) {
    table_.assign(capacity, 0);
    mask_ = capacity - 1;
    shift_ = 64;
    for (std::size_t c = capacity; c > 1; c >>= 1) {
      --shift_;
    }
    for (std::size_t k = 0; k < keys_.size(); ++k) {
      std::size_t h = hash(keys_[k]);
      while (table_[h] != 0) {
        h = (h + 1) & mask_;
      }
      table_[h] = static_cast<Entry>(k + 1);
    }
  }

  const T* shared_;
  std::int64_t width_;
  std::vector<Entry> table_;
  std::size_t mask_ = 0;
  int shift_ = 64;
  std::vector<std::int64_t> keys_;
  std::vector<std::unique_ptr<T[]>> chunks_;
  std::int64_t last_key_ = -1;
  T* last_row_ = nullptr;
};

/// A sparse worker buffer with the element interface of DistArray<T, N> (what a loop body uses).
template <class T, int N> class SparseBuffer final : public SparseRows<T> {
public:
  using value_type = T;
  using Shape = typename DistArray<T, N>::Shape;
  using RowMap = typename DistArray<T, N>::RowMap;
  static constexpr int rank = N;

  explicit SparseBuffer(const DistArray<T, N>& shared)
      : SparseRows<T>(shared.data(), row_width(shared)), shape_(shared.shape()),
        size_(shared.size()) {}

  // -- the DistArray element interface ---------------------------------------------------------
  const Shape& shape() const { return shape_; }
  std::int64_t extent(int d) const { return shape_[d]; }
  std::int64_t size() const { return size_; }
  std::int64_t rows() const { return shape_[0]; }
  std::int64_t cols() const {
    static_assert(N == 2, "cols() needs a 2-D array");
    return shape_[1];
  }
  template <class... I> T& operator()(I... i) {
    static_assert(sizeof...(I) == N, "rotor::DistArray: wrong number of subscripts");
    const std::int64_t idx[N] = {static_cast<std::int64_t>(i)...};
    std::int64_t off = 0;
    for (int d = 1; d < N; ++d) {
      off = off * shape_[d] + idx[d];
    }
    return this->row_data(idx[0])[off];
  }
  T& operator[](std::int64_t i) {
    static_assert(N == 1, "operator[] needs a 1-D array; use A(i, j) or A.row(i)");
    return *this->row_data(i);
  }
  RowMap row(std::int64_t i) {
    static_assert(N == 2, "row() needs a 2-D array");
    return RowMap(this->row_data(i), this->width());
  }

private:
  static std::int64_t row_width(const DistArray<T, N>& a) {
    return N == 1 || a.size() == 0 ? 1 : a.size() / a.shape()[0];
  }

  Shape shape_;
  std::int64_t size_;
};

} // namespace rotor::detail
