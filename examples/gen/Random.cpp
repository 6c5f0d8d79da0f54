#include "Random.h"

#include <stdexcept>

namespace rotor::gen {

AliasTable::AliasTable(const std::vector<double>& weights) {
  const std::size_t n = weights.size();
  double total = 0;
  for (double w : weights) {
    if (!(w >= 0)) {
      throw std::invalid_argument("AliasTable: weights must be >= 0");
    }
    total += w;
  }
  if (n == 0 || !(total > 0)) {
    throw std::invalid_argument("AliasTable: needs at least one positive weight");
  }
  prob_.assign(n, 0.0);
  alias_.assign(n, 0);
  std::vector<double> scaled(n);
  std::vector<std::uint32_t> small;
  std::vector<std::uint32_t> large;
  for (std::size_t i = 0; i < n; ++i) {
    scaled[i] = weights[i] * static_cast<double>(n) / total;
    (scaled[i] < 1.0 ? small : large).push_back(static_cast<std::uint32_t>(i));
  }
  while (!small.empty() && !large.empty()) {
    const std::uint32_t s = small.back();
    small.pop_back();
    const std::uint32_t l = large.back();
    prob_[s] = scaled[s];
    alias_[s] = l;
    scaled[l] = (scaled[l] + scaled[s]) - 1.0;
    if (scaled[l] < 1.0) {
      large.pop_back();
      small.push_back(l);
    }
  }
  for (std::uint32_t i : large) {
    prob_[i] = 1.0;
    alias_[i] = i;
  }
  for (std::uint32_t i : small) { // only rounding leftovers
    prob_[i] = 1.0;
    alias_[i] = i;
  }
}

std::vector<std::uint32_t> random_permutation(std::uint32_t n, Rng& rng) {
  std::vector<std::uint32_t> p(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    p[i] = i;
  }
  for (std::uint32_t i = n; i > 1; --i) {
    const auto j = static_cast<std::uint32_t>(rng.below(i));
    std::swap(p[i - 1], p[j]);
  }
  return p;
}

} // namespace rotor::gen
