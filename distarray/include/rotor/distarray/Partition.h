#pragma once
/// \file
/// Partitioning key ranges into blocks that balance record counts (Orion's histogram
/// partitioning), not only equal ranges.
///
/// \code
///   std::vector<std::int64_t> counts = ratings.histogram(&Rating::user);  // global, per value
///   rotor::Boundaries b = rotor::balanced_boundaries(counts, 4);
///   int block = b.block_of(user);        // 0..3
/// \endcode

#include <cstdint>
#include <vector>

namespace rotor {

/// Block i covers key values [starts[i], starts[i + 1]); starts.front() == 0,
/// starts.back() == extent.
struct Boundaries {
  std::vector<std::int64_t> starts;
  int blocks() const { return static_cast<int>(starts.size()) - 1; }
  std::int64_t extent() const { return starts.back(); }
  /// Block containing key value `v` (0 <= v < extent).
  int block_of(std::int64_t v) const;
};

/// `parts` contiguous blocks of [0, counts.size()) whose sums of `counts` are as equal as a
/// greedy prefix split allows. Every block is non-empty as a key range when
/// counts.size() >= parts (empty ranges otherwise).
Boundaries balanced_boundaries(const std::vector<std::int64_t>& counts, int parts);

/// `parts` blocks of equal key range over [0, extent).
Boundaries equal_boundaries(std::int64_t extent, int parts);

} // namespace rotor
