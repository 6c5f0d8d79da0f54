#pragma once
/// \file
/// Not for user code (an internal header that Rotor's public headers include).
/// Counter-based random numbers: the value for element i depends only on (seed, i), so fills and
/// shuffles give the same result on any number of ranks and threads (and in the serial build).

#include <cmath>
#include <cstdint>

namespace rotor::detail {

/// SplitMix64 finaliser: a bijective 64-bit mix with good avalanche.
inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// A 64-bit random value for (seed, stream, counter).
inline std::uint64_t counter_bits(std::uint64_t seed, std::uint64_t stream, std::uint64_t counter) {
  return mix64(mix64(seed ^ mix64(stream + 0x632be59bd9b4e019ULL)) + counter);
}

/// Uniform in [0, 1) with 53 random bits.
inline double counter_uniform(std::uint64_t seed, std::uint64_t stream, std::uint64_t counter) {
  return static_cast<double>(counter_bits(seed, stream, counter) >> 11) * 0x1.0p-53;
}

/// Standard normal (Box-Muller on two uniforms of the same counter).
inline double counter_normal(std::uint64_t seed, std::uint64_t counter) {
  constexpr double two_pi = 6.283185307179586476925286766559;
  double u1 = counter_uniform(seed, 1, counter);
  double u2 = counter_uniform(seed, 2, counter);
  if (u1 <= 0.0) {
    u1 = 0x1.0p-53;
  }
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(two_pi * u2);
}

} // namespace rotor::detail
