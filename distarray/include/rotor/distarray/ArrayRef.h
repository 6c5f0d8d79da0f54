#pragma once
/// \file
/// rotor::ArrayRef<T, N>: a DistArray's elements seen through a pointer and its extents, with the
/// DistArray's element and row API (`A(i, j)`, `A[i]`, `A.row(i)`, extents) callable on the host
/// and on a GPU (ROTOR_HOST_DEVICE). It is what the body of a device loop receives: rotor-cc
/// emits the body of a `device(gpu)` loop as a `__host__ __device__` lambda whose array
/// parameters are ArrayRefs (nvcc does not allow generic `auto&` parameters there); on the CPU
/// the body gets the DistArray (converted implicitly), on a GPU an ArrayRef to device memory.
///
/// \code
///   rotor::DistArray<float, 2> W({users, k});
///   rotor::ArrayRef<float, 2> w = W;     // host view; W must outlive it
///   w.row(u) += 0.1f * w.row(v);          // Eigen row maps, as W.row(u)
/// \endcode
/// An ArrayRef checks nothing (no ROTOR_CHECK_ACCESS guard): the loop's plan was proven by
/// rotor-cc, and a device has no guard to ask.

#include "rotor/distarray/DistArray.h"
#include "rotor/distarray/HostDevice.h"

#include <Eigen/Core>

#include <array>
#include <cstdint>

namespace rotor {

template <class T, int N> class ArrayRef {
public:
  using value_type = T;
  static constexpr int rank = N;
  using RowMap = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>>;

  /// A view of `a`'s elements (host memory).
  ArrayRef(DistArray<T, N>& a) : data_(a.data()) { // NOLINT: implicit, as a body argument
    for (int d = 0; d < N; ++d) {
      shape_[d] = a.extent(d);
    }
  }
  /// A view of `data` (row-major, extents `shape[0..N)`), e.g. a copy in device memory.
  ROTOR_HOST_DEVICE ArrayRef(T* data, const std::int64_t* shape) : data_(data) {
    for (int d = 0; d < N; ++d) {
      shape_[d] = shape[d];
    }
  }

  ROTOR_HOST_DEVICE std::int64_t extent(int d) const { return shape_[d]; }
  ROTOR_HOST_DEVICE std::array<std::int64_t, N> shape() const {
    std::array<std::int64_t, N> s{};
    for (int d = 0; d < N; ++d) {
      s[d] = shape_[d];
    }
    return s;
  }
  ROTOR_HOST_DEVICE std::int64_t size() const {
    std::int64_t n = 1;
    for (int d = 0; d < N; ++d) {
      n *= shape_[d];
    }
    return n;
  }
  ROTOR_HOST_DEVICE std::int64_t rows() const { return shape_[0]; }
  ROTOR_HOST_DEVICE std::int64_t cols() const {
    static_assert(N == 2, "cols() needs a 2-D array");
    return shape_[1];
  }
  template <class... I> ROTOR_HOST_DEVICE T& operator()(I... i) const {
    static_assert(sizeof...(I) == N, "rotor::ArrayRef: wrong number of subscripts");
    const std::int64_t idx[N] = {static_cast<std::int64_t>(i)...};
    std::int64_t lin = 0;
    for (int d = 0; d < N; ++d) {
      lin = lin * shape_[d] + idx[d];
    }
    return data_[lin];
  }
  ROTOR_HOST_DEVICE T& operator[](std::int64_t i) const {
    static_assert(N == 1, "operator[] needs a 1-D array; use A(i, j) or A.row(i)");
    return data_[i];
  }
  /// Eigen map of row i (N == 2), the same type as DistArray::row: the same arithmetic.
  ROTOR_HOST_DEVICE RowMap row(std::int64_t i) const {
    static_assert(N == 2, "row() needs a 2-D array");
    return RowMap(data_ + i * shape_[1], shape_[1]);
  }
  ROTOR_HOST_DEVICE T* data() const { return data_; }

private:
  T* data_;
  std::int64_t shape_[N];
};

} // namespace rotor
