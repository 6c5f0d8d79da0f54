#pragma once
/// \file
/// Deterministic synthetic ratings with Zipf-skewed users and items (a few hot keys, a long
/// tail), for the GPU tests and bench/cuda. Values are a rank-`rank` product of hidden factors
/// plus noise, so SGD-MF can learn them. Header-only, host only.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace rotor::gpu {

struct SyntheticRatings {
  std::vector<std::int32_t> user;
  std::vector<std::int32_t> item;
  std::vector<float> value;
  std::int32_t users = 0;
  std::int32_t items = 0;
  std::size_t size() const { return user.size(); }
};

namespace detail {

/// Cumulative Zipf(s) weights over n keys, key 0 the hottest.
inline std::vector<double> zipf_cdf(std::int32_t n, double s) {
  std::vector<double> cdf(static_cast<std::size_t>(n));
  double total = 0;
  for (std::int32_t i = 0; i < n; ++i) {
    total += 1.0 / std::pow(static_cast<double>(i) + 1.0, s);
    cdf[static_cast<std::size_t>(i)] = total;
  }
  for (double& c : cdf) {
    c /= total;
  }
  return cdf;
}

inline double uniform01(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * (1.0 / 9007199254740992.0);
}

inline std::int32_t draw(const std::vector<double>& cdf, std::mt19937_64& rng) {
  const auto it = std::lower_bound(cdf.begin(), cdf.end(), uniform01(rng));
  return static_cast<std::int32_t>(
      std::min<std::ptrdiff_t>(it - cdf.begin(), static_cast<std::ptrdiff_t>(cdf.size()) - 1));
}

} // namespace detail

/// `records` ratings over users x items; keys drawn Zipf(skew) (skew 0: uniform) and then
/// scattered by a fixed permutation so hot keys are not all in the first block.
inline SyntheticRatings make_synthetic_ratings(std::int32_t users, std::int32_t items,
                                               std::size_t records, double skew, std::uint64_t seed,
                                               int rank = 8) {
  std::mt19937_64 rng(seed);
  const auto ucdf = detail::zipf_cdf(users, skew);
  const auto icdf = detail::zipf_cdf(items, skew);
  std::vector<std::int32_t> uperm(static_cast<std::size_t>(users));
  std::vector<std::int32_t> iperm(static_cast<std::size_t>(items));
  for (std::int32_t i = 0; i < users; ++i) {
    uperm[static_cast<std::size_t>(i)] = i;
  }
  for (std::int32_t i = 0; i < items; ++i) {
    iperm[static_cast<std::size_t>(i)] = i;
  }
  for (std::size_t i = uperm.size(); i > 1; --i) { // Fisher-Yates with our own draws
    std::swap(uperm[i - 1], uperm[static_cast<std::size_t>(rng() % i)]);
  }
  for (std::size_t i = iperm.size(); i > 1; --i) {
    std::swap(iperm[i - 1], iperm[static_cast<std::size_t>(rng() % i)]);
  }
  auto factor = [&](std::size_t n) {
    std::vector<float> f(n * static_cast<std::size_t>(rank));
    for (float& x : f) {
      x = static_cast<float>((detail::uniform01(rng) - 0.5) * 2.0 / std::sqrt(rank));
    }
    return f;
  };
  const auto U = factor(static_cast<std::size_t>(users));
  const auto V = factor(static_cast<std::size_t>(items));
  SyntheticRatings out;
  out.users = users;
  out.items = items;
  out.user.resize(records);
  out.item.resize(records);
  out.value.resize(records);
  for (std::size_t r = 0; r < records; ++r) {
    const std::int32_t u = uperm[static_cast<std::size_t>(detail::draw(ucdf, rng))];
    const std::int32_t i = iperm[static_cast<std::size_t>(detail::draw(icdf, rng))];
    float v = 3.0f + static_cast<float>((detail::uniform01(rng) - 0.5) * 0.2);
    for (int j = 0; j < rank; ++j) {
      v += 4.0f * U[static_cast<std::size_t>(u) * rank + j] *
           V[static_cast<std::size_t>(i) * rank + j];
    }
    out.user[r] = u;
    out.item[r] = i;
    out.value[r] = v;
  }
  return out;
}

} // namespace rotor::gpu
