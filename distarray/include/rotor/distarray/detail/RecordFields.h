#pragma once
/// \file
/// Not for user code (an internal header that Rotor's public headers include).
/// Field-by-field access to a plain record (an aggregate such as
/// `struct Rating { int32_t user; int32_t item; float value; };`) without user registration:
/// C++17 structured bindings give the fields in declaration order. Loaders map columns to
/// fields with it; sort_by_keys() orders by the integer fields with it.
///
/// Supported: aggregates of up to 16 public data members, no base classes, no arrays as members.

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace rotor::detail {

struct AnyField {
  template <class T> constexpr operator T() const noexcept; // never defined: used unevaluated
};

template <class R, class Seq, class = void> struct IsBraceConstructible : std::false_type {};
template <class R, std::size_t... I>
struct IsBraceConstructible<R, std::index_sequence<I...>,
                            std::void_t<decltype(R{(void(I), AnyField{})...})>> : std::true_type {};

template <class R, std::size_t N = 16> constexpr std::size_t field_count() {
  if constexpr (N == 0) {
    return 0;
  } else if constexpr (IsBraceConstructible<R, std::make_index_sequence<N>>::value) {
    return N;
  } else {
    return field_count<R, N - 1>();
  }
}

/// A tuple of references to the fields of `r`, in declaration order.
template <class R> constexpr auto field_refs(R& r) {
  constexpr std::size_t n = field_count<std::remove_const_t<R>>();
  static_assert(n > 0 && n <= 16, "rotor: a record must be an aggregate of 1 to 16 data members");
  // clang-format off
  if constexpr (n == 1) { auto& [a] = r; return std::tie(a); }
  else if constexpr (n == 2) { auto& [a, b] = r; return std::tie(a, b); }
  else if constexpr (n == 3) { auto& [a, b, c] = r; return std::tie(a, b, c); }
  else if constexpr (n == 4) { auto& [a, b, c, d] = r; return std::tie(a, b, c, d); }
  else if constexpr (n == 5) { auto& [a, b, c, d, e] = r; return std::tie(a, b, c, d, e); }
  else if constexpr (n == 6) { auto& [a, b, c, d, e, f] = r; return std::tie(a, b, c, d, e, f); }
  else if constexpr (n == 7) { auto& [a, b, c, d, e, f, g] = r; return std::tie(a, b, c, d, e, f, g); }
  else if constexpr (n == 8) { auto& [a, b, c, d, e, f, g, h] = r; return std::tie(a, b, c, d, e, f, g, h); }
  else if constexpr (n == 9) { auto& [a, b, c, d, e, f, g, h, i] = r; return std::tie(a, b, c, d, e, f, g, h, i); }
  else if constexpr (n == 10) { auto& [a, b, c, d, e, f, g, h, i, j] = r; return std::tie(a, b, c, d, e, f, g, h, i, j); }
  else if constexpr (n == 11) { auto& [a, b, c, d, e, f, g, h, i, j, k] = r; return std::tie(a, b, c, d, e, f, g, h, i, j, k); }
  else if constexpr (n == 12) { auto& [a, b, c, d, e, f, g, h, i, j, k, l] = r; return std::tie(a, b, c, d, e, f, g, h, i, j, k, l); }
  else if constexpr (n == 13) { auto& [a, b, c, d, e, f, g, h, i, j, k, l, m] = r; return std::tie(a, b, c, d, e, f, g, h, i, j, k, l, m); }
  else if constexpr (n == 14) { auto& [a, b, c, d, e, f, g, h, i, j, k, l, m, o] = r; return std::tie(a, b, c, d, e, f, g, h, i, j, k, l, m, o); }
  else if constexpr (n == 15) { auto& [a, b, c, d, e, f, g, h, i, j, k, l, m, o, p] = r; return std::tie(a, b, c, d, e, f, g, h, i, j, k, l, m, o, p); }
  else { auto& [a, b, c, d, e, f, g, h, i, j, k, l, m, o, p, q] = r; return std::tie(a, b, c, d, e, f, g, h, i, j, k, l, m, o, p, q); }
  // clang-format on
}

/// Calls `fn(field)` for each field of `r` in declaration order.
template <class R, class Fn> constexpr void for_each_field(R& r, Fn&& fn) {
  std::apply([&](auto&... f) { (fn(f), ...); }, field_refs(r));
}

/// Writes the integer fields of `r` (declaration order) to `out`; returns how many.
template <class R> int extract_keys(const R& r, long long* out) {
  int n = 0;
  for_each_field(r, [&](const auto& f) {
    if constexpr (std::is_integral_v<std::remove_cv_t<std::remove_reference_t<decltype(f)>>>) {
      out[n++] = static_cast<long long>(f);
    }
  });
  return n;
}

/// Lexicographic order of the integer fields (declaration order); -1, 0 or 1.
template <class R> int compare_keys(const R& a, const R& b) {
  long long ka[16];
  long long kb[16];
  const int n = extract_keys(a, ka);
  extract_keys(b, kb);
  for (int i = 0; i < n; ++i) {
    if (ka[i] != kb[i]) {
      return ka[i] < kb[i] ? -1 : 1;
    }
  }
  return 0;
}

} // namespace rotor::detail
