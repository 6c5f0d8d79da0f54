#pragma once
/// \file
/// rotor::DistArray<T, N>: a dense, row-major parameter array.
///
/// \code
///   rotor::DistArray<float, 2> W({num_users, k});
///   W.fill_normal(0.f, 0.1f, /*seed=*/1);
///   auto w = W.row(u);            // Eigen map of row u (k contiguous floats)
///   float x = W(u, 3);            // element access
///   w += 0.1f * w;                // writes through the map
///   W.save_hdf5("model.h5", "W");
/// \endcode
///
/// Distribution: every rank holds the whole array. Inside a parallel loop each worker touches
/// only the blocks its plan gives it and the runtime moves blocks between ranks; when a loop ends
/// the runtime makes every rank's copy whole and equal again, so code outside parallel loops sees
/// the same values on every rank (see docs/architecture.md, "Decisions").
///
/// Copying a DistArray copies its elements (like Eigen::Matrix); moving is cheap.

#include "rotor/distarray/detail/AccessCheck.h"
#include "rotor/distarray/detail/ElementType.h"

#include <Eigen/Core>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace rotor {

namespace detail {
/// Allocates `bytes` bytes aligned to 64 (cache line; keeps Eigen's SIMD peeling identical
/// between the serial build and every block layout of the Rotor build).
void* aligned_alloc_bytes(std::size_t bytes);
void aligned_free_bytes(void* p) noexcept;
struct AlignedFree {
  void operator()(void* p) const noexcept { aligned_free_bytes(p); }
};
void save_array_hdf5(const std::string& path, const std::string& name, ElementType type,
                     const std::int64_t* shape, int rank, const void* data);
void load_array_hdf5(const std::string& path, const std::string& name, ElementType type,
                     const std::int64_t* shape, int rank, void* data);
/// Throws rotor::MemoryError when an array of this shape would not fit (MemoryLimit.h).
void check_array_allocation(ElementType type, int rank, const std::int64_t* shape,
                            std::size_t element_bytes, const char* name);
void fill_normal_raw(ElementType type, void* data, std::int64_t count, double mean, double stddev,
                     std::uint64_t seed);
void fill_uniform_raw(ElementType type, void* data, std::int64_t count, double lo, double hi,
                      std::uint64_t seed);
} // namespace detail

template <class T, int N> class DistArray {
  static_assert(N >= 1, "rotor::DistArray needs at least one dimension");
  static_assert(std::is_arithmetic_v<T>, "rotor::DistArray elements must be arithmetic");

public:
  using value_type = T;
  using Shape = std::array<std::int64_t, N>;
  static constexpr int rank = N;
  /// Eigen view of one row (N == 2): `w.dot(h)`, `w += ...` work on the array's memory.
  using RowMap = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>>;
  using ConstRowMap = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, 1>>;

  DistArray() { shape_.fill(0); }
  /// An array of the given extents, zero-filled. Throws std::invalid_argument on a negative extent,
  /// and rotor::MemoryError (one line: the array, `name` when given, its shape and bytes, the
  /// memory a rank may use and, for an extent of a loaded dataset, its largest id and FILE:LINE)
  /// when it would not fit in the memory a rank may use (MemoryLimit.h).
  explicit DistArray(const Shape& shape, const char* name = nullptr) : shape_(shape) {
    for (int d = 0; d < N; ++d) {
      if (shape_[d] < 0) {
        throw std::invalid_argument("rotor::DistArray: extent " + std::to_string(d) + " is " +
                                    std::to_string(shape_[d]) + " (must be >= 0)");
      }
    }
    detail::check_array_allocation(detail::element_type_of<T>(), N, shape_.data(), sizeof(T), name);
    std::int64_t n = 1;
    for (int d = 0; d < N; ++d) {
      n *= shape_[d];
    }
    allocate(n);
    if (n > 0) {
      std::memset(data_, 0, static_cast<std::size_t>(n) * sizeof(T));
    }
  }
  DistArray(const DistArray& other) : DistArray(other.shape_) {
    if (size_ > 0) {
      std::memcpy(data_, other.data_, static_cast<std::size_t>(size_) * sizeof(T));
    }
  }
  /// Moving leaves `other` empty (shape all zeros, no storage).
  DistArray(DistArray&& other) noexcept
      : shape_(other.shape_), size_(other.size_), storage_(std::move(other.storage_)),
        data_(other.data_) {
    other.release();
  }
  DistArray& operator=(const DistArray& other) {
    if (this != &other) {
      DistArray copy(other);
      *this = std::move(copy);
    }
    return *this;
  }
  DistArray& operator=(DistArray&& other) noexcept {
    if (this != &other) {
      shape_ = other.shape_;
      size_ = other.size_;
      storage_ = std::move(other.storage_);
      data_ = other.data_;
      other.release();
    }
    return *this;
  }

  /// A DistArray of extents `shape` over `data`, which it does not own: writes through it land
  /// in `data`, and `data` must outlive it. rotor-cc binds plain containers (a std::vector used
  /// as rows) this way, so the runtime moves their blocks in place (docs/design/containers.md).
  /// Copying it copies the elements into owned storage, as for any DistArray.
  static DistArray adopt(T* data, const Shape& shape) {
    DistArray view;
    view.shape_ = shape;
    view.size_ = 1;
    for (int d = 0; d < N; ++d) {
      if (shape[d] < 0) {
        throw std::invalid_argument("rotor::DistArray::adopt: extent " + std::to_string(d) +
                                    " is " + std::to_string(shape[d]) + " (must be >= 0)");
      }
      view.size_ *= shape[d];
    }
    view.data_ = view.size_ > 0 ? data : nullptr;
    return view;
  }

  const Shape& shape() const { return shape_; }
  std::int64_t extent(int d) const { return shape_[d]; }
  std::int64_t size() const { return size_; }
  /// N == 2 conveniences, as in Eigen.
  std::int64_t rows() const { return shape_[0]; }
  std::int64_t cols() const {
    static_assert(N == 2, "cols() needs a 2-D array");
    return shape_[1];
  }

  template <class... I> T& operator()(I... i) {
    static_assert(sizeof...(I) == N, "rotor::DistArray: wrong number of subscripts");
    const std::int64_t idx[N] = {static_cast<std::int64_t>(i)...};
    ROTOR_DETAIL_CHECK_ACCESS(this, idx, N, true);
    return data_[linear(idx)];
  }
  template <class... I> const T& operator()(I... i) const {
    static_assert(sizeof...(I) == N, "rotor::DistArray: wrong number of subscripts");
    const std::int64_t idx[N] = {static_cast<std::int64_t>(i)...};
    ROTOR_DETAIL_CHECK_ACCESS(this, idx, N, false);
    return data_[linear(idx)];
  }
  T& operator[](std::int64_t i) {
    static_assert(N == 1, "operator[] needs a 1-D array; use A(i, j) or A.row(i)");
    ROTOR_DETAIL_CHECK_ACCESS(this, &i, 1, true);
    return data_[i];
  }
  const T& operator[](std::int64_t i) const {
    static_assert(N == 1, "operator[] needs a 1-D array; use A(i, j) or A.row(i)");
    ROTOR_DETAIL_CHECK_ACCESS(this, &i, 1, false);
    return data_[i];
  }
  RowMap row(std::int64_t i) {
    static_assert(N == 2, "row() needs a 2-D array");
    [[maybe_unused]] const std::int64_t idx[2] = {i, -1};
    ROTOR_DETAIL_CHECK_ACCESS(this, idx, 2, true);
    return RowMap(data_ + i * shape_[1], shape_[1]);
  }
  ConstRowMap row(std::int64_t i) const {
    static_assert(N == 2, "row() needs a 2-D array");
    [[maybe_unused]] const std::int64_t idx[2] = {i, -1};
    ROTOR_DETAIL_CHECK_ACCESS(this, idx, 2, false);
    return ConstRowMap(data_ + i * shape_[1], shape_[1]);
  }

  /// Raw storage (row-major). Taking it inside a parallel loop makes the loop serial.
  T* data() { return data_; }
  const T* data() const { return data_; }

  void fill(T value) {
    for (std::int64_t i = 0; i < size_; ++i) {
      data_[i] = value;
    }
  }
  /// Normal(mean, stddev) values; element i depends only on (seed, i), never on ranks or threads.
  void fill_normal(T mean, T stddev, std::uint64_t seed) {
    detail::fill_normal_raw(detail::element_type_of<T>(), data_, size_, static_cast<double>(mean),
                            static_cast<double>(stddev), seed);
  }
  /// Uniform [lo, hi) values (integers: [lo, hi)); element i depends only on (seed, i).
  void fill_uniform(T lo, T hi, std::uint64_t seed) {
    detail::fill_uniform_raw(detail::element_type_of<T>(), data_, size_, static_cast<double>(lo),
                             static_cast<double>(hi), seed);
  }

  /// Writes the array as dataset `name` of HDF5 file `path` (created or extended; an existing
  /// dataset of that name is replaced). Collective: rank 0 writes, every rank returns when the
  /// file is complete. Atomic: the file is written under a temporary name, synced and renamed,
  /// so a crash leaves the previous file intact. Throws std::runtime_error naming the file on
  /// failure (on every rank).
  void save_hdf5(const std::string& path, const std::string& name) const {
    detail::save_array_hdf5(path, name, detail::element_type_of<T>(), shape_.data(), N, data_);
  }
  /// Reads dataset `name` of `path` into this array; its shape must equal shape() and its element
  /// class (integer or floating) that of T. Collective: rank 0 reads, every rank gets the values.
  /// Throws rotor::InputError naming the file and dataset on any mismatch.
  void load_hdf5(const std::string& path, const std::string& name) {
    detail::load_array_hdf5(path, name, detail::element_type_of<T>(), shape_.data(), N, data_);
  }
  /// A copy of the whole array for evaluation on rank 0. Outside parallel loops every rank's
  /// copy is already whole and equal (docs/architecture.md, decision 3), so this is a plain
  /// copy on every rank and needs no communication.
  DistArray gather() const { return *this; }

  /// Row-major linear index of a full subscript (no checks).
  std::int64_t linear(const std::int64_t* idx) const {
    std::int64_t off = idx[0];
    for (int d = 1; d < N; ++d) {
      off = off * shape_[d] + idx[d];
    }
    return off;
  }

private:
  void release() noexcept {
    shape_.fill(0);
    size_ = 0;
    storage_.reset();
    data_ = nullptr;
  }
  void allocate(std::int64_t n) {
    size_ = n;
    storage_.reset(n > 0 ? detail::aligned_alloc_bytes(static_cast<std::size_t>(n) * sizeof(T))
                         : nullptr);
    data_ = static_cast<T*>(storage_.get());
  }

  Shape shape_{};
  std::int64_t size_ = 0;
  std::unique_ptr<void, detail::AlignedFree> storage_;
  T* data_ = nullptr;
};

} // namespace rotor
