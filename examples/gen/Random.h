#pragma once
/// \file
/// Portable random numbers for rotor-gen. The standard library's distributions differ between
/// implementations, so every distribution here is written out: the same seed gives the same
/// bytes on every platform and compiler.

#include <cmath>
#include <cstdint>
#include <vector>

namespace rotor::gen {

/// SplitMix64 finaliser: a good 64-bit mixing function.
inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// A stream id from a seed and up to three coordinates (user, item, ...).
inline std::uint64_t stream_id(std::uint64_t seed, std::uint64_t a, std::uint64_t b = 0,
                               std::uint64_t c = 0) {
  return mix64(mix64(mix64(seed ^ 0x5851f42d4c957f2dULL) ^ a) ^ (b * 0x2545f4914f6cdd1dULL)) ^
         mix64(c + 0x632be59bd9b4e019ULL);
}

/// xoshiro256** seeded by SplitMix64, with the distributions rotor-gen needs.
class Rng {
public:
  explicit Rng(std::uint64_t seed) {
    for (auto& s : s_) {
      seed += 0x9e3779b97f4a7c15ULL;
      s = mix64(seed);
    }
  }

  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  /// Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// Uniform in (0, 1].
  double uniform_open0() { return 1.0 - uniform(); }
  /// Uniform integer in [0, n) (Lemire's multiply-shift; bias below 2^-32 for n < 2^32).
  std::uint64_t below(std::uint64_t n) {
    __extension__ using u128 = unsigned __int128; // GCC/Clang extension, silences -Wpedantic
    return static_cast<std::uint64_t>((static_cast<u128>(next()) * n) >> 64);
  }
  /// Standard normal (Box-Muller, both values used).
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double r = std::sqrt(-2.0 * std::log(uniform_open0()));
    const double theta = 6.283185307179586 * uniform();
    spare_ = r * std::sin(theta);
    has_spare_ = true;
    return r * std::cos(theta);
  }
  /// Gamma(shape, 1) by Marsaglia and Tsang (with the shape < 1 boost).
  double gamma(double shape) {
    if (shape < 1.0) {
      const double u = uniform_open0();
      return gamma(shape + 1.0) * std::pow(u, 1.0 / shape);
    }
    const double d = shape - 1.0 / 3.0;
    const double c = 1.0 / std::sqrt(9.0 * d);
    for (;;) {
      double x = 0;
      double v = 0;
      do {
        x = normal();
        v = 1.0 + c * x;
      } while (v <= 0);
      v = v * v * v;
      const double u = uniform_open0();
      if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) {
        return d * v;
      }
    }
  }

private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
  double spare_ = 0;
  bool has_spare_ = false;
};

/// Walker's alias table: O(1) draws from a fixed discrete distribution.
class AliasTable {
public:
  AliasTable() = default;
  explicit AliasTable(const std::vector<double>& weights);
  std::uint32_t draw(Rng& rng) const {
    const std::uint64_t i = rng.below(prob_.size());
    return rng.uniform() < prob_[i] ? static_cast<std::uint32_t>(i) : alias_[i];
  }
  std::size_t size() const { return prob_.size(); }

private:
  std::vector<double> prob_;
  std::vector<std::uint32_t> alias_;
};

/// A deterministic permutation of [0, n) (Fisher-Yates with `rng`).
std::vector<std::uint32_t> random_permutation(std::uint32_t n, Rng& rng);

} // namespace rotor::gen
