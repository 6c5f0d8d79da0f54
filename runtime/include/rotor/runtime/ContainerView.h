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
/// frontend binds a container only when the plan is exact (not serial, the container not
/// buffered) and the body uses it only through subscripts and size queries, so the container is
/// never resized while the view lives.

#include "rotor/distarray/DistArray.h"

#include <array>
#include <cstddef>
#include <cstdint>
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

} // namespace rotor::codegen
