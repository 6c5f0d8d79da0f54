#pragma once
/// \file
/// rotor::IndexSpace<N>: a dense N-dimensional iteration space of unique points.
///
/// \code
///   rotor::IndexSpace<2> grid({rows, cols});
///   #pragma rotor parallel_for ordered
///   for (auto [i, j] : grid) { A(i, j) += A(i - 1, j) + A(i, j - 1); }
/// \endcode
/// Points are visited in row-major (lexicographic) order; the key fields are i0, i1, ...

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <tuple>

namespace rotor {

/// A point of an IndexSpace; supports `idx[d]` and structured bindings.
template <int N> struct Index {
  std::array<std::int64_t, N> v{};
  std::int64_t operator[](int d) const { return v[d]; }
  std::int64_t& operator[](int d) { return v[d]; }
  template <std::size_t I> std::int64_t get() const { return v[I]; }
  friend bool operator==(const Index& a, const Index& b) { return a.v == b.v; }
};

template <int N> class IndexSpace {
  static_assert(N >= 1, "rotor::IndexSpace needs at least one dimension");

public:
  using Extents = std::array<std::int64_t, N>;
  explicit IndexSpace(const Extents& extents) : extents_(extents) {
    for (int d = 0; d < N; ++d) {
      if (extents_[d] < 0) {
        throw std::invalid_argument("rotor::IndexSpace: extent " + std::to_string(d) + " is " +
                                    std::to_string(extents_[d]) + " (must be >= 0)");
      }
    }
  }

  class iterator {
  public:
    iterator(const Extents* e, bool end) : extents_(e) {
      if (end) {
        done_ = true;
      } else {
        for (int d = 0; d < N; ++d) {
          done_ = done_ || (*e)[d] == 0;
        }
      }
    }
    Index<N> operator*() const { return cur_; }
    iterator& operator++() {
      for (int d = N - 1; d >= 0; --d) {
        if (++cur_.v[d] < (*extents_)[d]) {
          return *this;
        }
        cur_.v[d] = 0;
      }
      done_ = true;
      return *this;
    }
    friend bool operator!=(const iterator& a, const iterator& b) {
      return a.done_ != b.done_ || (!a.done_ && !(a.cur_ == b.cur_));
    }
    friend bool operator==(const iterator& a, const iterator& b) { return !(a != b); }

  private:
    const Extents* extents_;
    Index<N> cur_{};
    bool done_ = false;
  };

  iterator begin() const { return iterator(&extents_, false); }
  iterator end() const { return iterator(&extents_, true); }
  const Extents& extents() const { return extents_; }
  std::int64_t extent(int d) const { return extents_[d]; }
  std::int64_t size() const {
    std::int64_t n = 1;
    for (auto e : extents_) {
      n *= e;
    }
    return n;
  }

private:
  Extents extents_;
};

} // namespace rotor

template <int N> struct std::tuple_size<rotor::Index<N>> : std::integral_constant<std::size_t, N> {};
template <std::size_t I, int N> struct std::tuple_element<I, rotor::Index<N>> {
  using type = std::int64_t;
};
