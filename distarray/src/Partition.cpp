#include "rotor/distarray/Partition.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace rotor {

int Boundaries::block_of(std::int64_t v) const {
  auto it = std::upper_bound(starts.begin(), starts.end(), v);
  return static_cast<int>(it - starts.begin()) - 1;
}

Boundaries balanced_boundaries(const std::vector<std::int64_t>& counts, int parts) {
  if (parts < 1) {
    throw std::invalid_argument("balanced_boundaries: parts is " + std::to_string(parts));
  }
  const auto extent = static_cast<std::int64_t>(counts.size());
  // prefix[v] = records with key < v.
  std::vector<std::int64_t> prefix(counts.size() + 1, 0);
  for (std::size_t v = 0; v < counts.size(); ++v) {
    if (counts[v] < 0) {
      throw std::invalid_argument("balanced_boundaries: negative count at key " +
                                  std::to_string(v));
    }
    prefix[v + 1] = prefix[v] + counts[v];
  }
  const std::int64_t total = prefix.back();
  Boundaries b;
  b.starts.push_back(0);
  for (int p = 1; p < parts; ++p) {
    // Block p-1 ends where the prefix is closest to p/parts of the total, keeping at least one
    // key value in this block and in each block after it (when there are enough values).
    const double target = static_cast<double>(total) * p / parts;
    const std::int64_t lo = std::min(b.starts.back() + 1, extent);
    const std::int64_t hi = std::max(lo, std::min(extent, extent - (parts - p)));
    auto first = prefix.begin() + lo;
    auto last = prefix.begin() + hi + 1;
    auto it = std::lower_bound(first, last, target,
                               [](std::int64_t a, double t) { return static_cast<double>(a) < t; });
    std::int64_t v = it == last ? hi : static_cast<std::int64_t>(it - prefix.begin());
    if (v > lo && static_cast<double>(prefix[static_cast<std::size_t>(v)]) - target >
                      target - static_cast<double>(prefix[static_cast<std::size_t>(v) - 1])) {
      --v;
    }
    b.starts.push_back(v);
  }
  b.starts.push_back(extent);
  return b;
}

Boundaries equal_boundaries(std::int64_t extent, int parts) {
  if (parts < 1) {
    throw std::invalid_argument("equal_boundaries: parts is " + std::to_string(parts));
  }
  Boundaries b;
  for (int p = 0; p <= parts; ++p) {
    b.starts.push_back(extent * p / parts);
  }
  return b;
}

int BlockGrid::block_of(const std::int64_t* keys) const {
  int block = 0;
  for (std::size_t d = 0; d < dims.size(); ++d) {
    const Boundaries& b = dims[d];
    if (keys[d] < 0 || keys[d] >= b.extent()) {
      throw std::out_of_range("rotor::BlockGrid: key " + std::to_string(keys[d]) +
                              " of dimension " + std::to_string(d) + " is outside [0, " +
                              std::to_string(b.extent()) + ")");
    }
    block = block * b.blocks() + b.block_of(keys[d]);
  }
  return block;
}

double imbalance(const std::vector<std::int64_t>& loads) {
  if (loads.empty()) {
    return 1.0;
  }
  std::int64_t total = 0;
  std::int64_t most = 0;
  for (auto l : loads) {
    total += l;
    most = std::max(most, l);
  }
  return total == 0 ? 1.0
                    : static_cast<double>(most) * static_cast<double>(loads.size()) /
                          static_cast<double>(total);
}

} // namespace rotor
