#pragma once
/// \file
/// rotor::Accumulator<T, Op>: a reduction variable with an explicit operation, for reductions
/// that are not sums. Inside a parallel loop each worker gets a private accumulator starting at
/// the operation's identity; afterwards the partials are combined in a fixed worker order.
///
/// \code
///   rotor::Accumulator<double> loss;               // a sum, like `double loss = 0`
///   rotor::Accumulator<float, rotor::Max> worst;   // largest error seen
///   #pragma rotor parallel_for
///   for (const Rating& r : ratings) { ...; loss += e * e; worst += std::abs(e); }
///   std::printf("%g %g\n", loss.value(), worst.value());
/// \endcode
/// `acc += x` folds x into the accumulator with Op (for Max: acc = max(acc, x)).

#include <limits>
#include <type_traits>

namespace rotor {

struct Sum {
  template <class T> static constexpr T identity() { return T(0); }
  template <class T> static constexpr T apply(T a, T b) { return a + b; }
};
struct Max {
  template <class T> static constexpr T identity() { return std::numeric_limits<T>::lowest(); }
  template <class T> static constexpr T apply(T a, T b) { return a < b ? b : a; }
};
struct Min {
  template <class T> static constexpr T identity() { return std::numeric_limits<T>::max(); }
  template <class T> static constexpr T apply(T a, T b) { return b < a ? b : a; }
};

template <class T, class Op = Sum> class Accumulator {
  static_assert(std::is_arithmetic_v<T>, "rotor::Accumulator needs an arithmetic type");

public:
  using value_type = T;
  constexpr Accumulator() = default;
  constexpr explicit Accumulator(T initial) : value_(initial) {}

  Accumulator& operator+=(T x) {
    value_ = Op::apply(value_, x);
    return *this;
  }
  Accumulator& operator-=(T x) {
    static_assert(std::is_same_v<Op, Sum>, "-= is only defined for sum accumulators");
    value_ -= x;
    return *this;
  }
  /// Folds another accumulator's value in (how partials are combined).
  void combine(const Accumulator& other) { value_ = Op::apply(value_, other.value_); }
  T value() const { return value_; }
  operator T() const { return value_; }
  void reset() { value_ = Op::template identity<T>(); }

private:
  T value_ = Op::template identity<T>();
};

} // namespace rotor
