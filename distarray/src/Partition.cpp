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
  std::int64_t total = 0;
  for (auto c : counts) {
    total += c;
  }
  Boundaries b;
  b.starts.push_back(0);
  std::int64_t acc = 0;
  std::int64_t v = 0;
  for (int p = 1; p < parts; ++p) {
    // End block p-1 once its cumulative share reaches p/parts of the total, leaving at least
    // one key value for each remaining block.
    const std::int64_t target = (total * p + parts - 1) / parts;
    const std::int64_t max_end = std::max<std::int64_t>(b.starts.back(), extent - (parts - p));
    while (v < max_end && (acc < target || v <= b.starts.back())) {
      acc += counts[static_cast<std::size_t>(v)];
      ++v;
    }
    b.starts.push_back(std::min(v, extent));
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

} // namespace rotor
