#pragma once
/// \file
/// Not for user code (an internal header that Rotor's public headers include).
/// The element type of a DistArray as a value: what HDF5 I/O, MPI reductions, checkpoints and
/// --rotor-validate switch on. Every switch names all six cases and calls unknown_element_type
/// after it: there is no silent default.

#include <cstdint>
#include <type_traits>

namespace rotor::detail {

/// The element types DistArray supports (float, double, int32, int64, uint32, uint64), as HDF5,
/// MPI, checkpoints and --rotor-validate see them.
enum class ElementType { f32, f64, i32, i64, u32, u64 };
/// Throws std::logic_error naming `type`: for a switch over ElementType that found no case (a
/// value no enumerator has); there is no default element type.
[[noreturn]] void unknown_element_type(ElementType type);
/// The ElementType of T (a compile error for any other T).
template <class T> constexpr ElementType element_type_of() {
  if constexpr (std::is_same_v<T, float>)
    return ElementType::f32;
  else if constexpr (std::is_same_v<T, double>)
    return ElementType::f64;
  else if constexpr (std::is_same_v<T, std::int32_t>)
    return ElementType::i32;
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return ElementType::i64;
  else if constexpr (std::is_same_v<T, std::uint32_t>)
    return ElementType::u32;
  else {
    static_assert(std::is_same_v<T, std::uint64_t>,
                  "rotor::DistArray supports float, double, int32, int64, uint32 and uint64");
    return ElementType::u64;
  }
}

} // namespace rotor::detail
