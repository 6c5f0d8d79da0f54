#pragma once
/// \file
/// Partitioning key ranges into blocks that balance record counts (Orion's histogram
/// partitioning), not only equal ranges.
///
/// \code
///   std::vector<std::int64_t> counts = ratings.histogram(&Rating::user);  // global, per value
///   rotor::Boundaries b = rotor::balanced_boundaries(counts, 4);
///   int block = b.block_of(user);        // 0..3
///
///   // Two fields: a 4 x 4 grid of (user block, item block); records grouped by block.
///   rotor::BlockGrid grid{{rotor::histogram_partition(ratings, &Rating::user, 4),
///                          rotor::histogram_partition(ratings, &Rating::item, 4)}};
///   rotor::Buckets b = rotor::bucket_by_block(ratings, grid, &Rating::user, &Rating::item);
///   // this rank's records of block k: ratings[b.order[i]] for i in [b.offsets[k], b.offsets[k+1])
/// \endcode

#include "rotor/distarray/Dataset.h"
#include "rotor/distarray/detail/Collective.h"

#include <cstdint>
#include <stdexcept>
#include <string>
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

/// Histogram partitioning of one key field: balanced_boundaries(data.histogram(f), parts).
/// Collective for a distributed dataset; the same boundaries on every rank and for any number
/// of ranks.
template <class Record, class F>
Boundaries histogram_partition(const Dataset<Record>& data, F Record::*f, int parts) {
  return balanced_boundaries(data.histogram(f), parts);
}

/// Blocks over several key fields: the cross product of one Boundaries per field, numbered
/// row-major (the last field varies fastest).
struct BlockGrid {
  std::vector<Boundaries> dims;
  int blocks() const {
    int n = 1;
    for (const Boundaries& b : dims) {
      n *= b.blocks();
    }
    return n;
  }
  /// Block of a record whose key fields are `keys[0..dims.size())`. Throws std::out_of_range
  /// if a key is outside its boundaries.
  int block_of(const std::int64_t* keys) const;
};

/// This rank's records grouped by block (stable within a block).
struct Buckets {
  std::vector<std::int64_t> offsets;       ///< blocks() + 1 entries into `order`
  std::vector<std::size_t> order;          ///< local record indices, block by block
  std::vector<std::int64_t> global_counts; ///< records per block over all ranks
};

/// Groups this rank's records by the block of `fields` (one per grid dimension) and counts
/// every block's records over all ranks (collective for a distributed dataset).
template <class Record, class... F>
Buckets bucket_by_block(const Dataset<Record>& data, const BlockGrid& grid, F Record::*... fields) {
  if (sizeof...(F) != grid.dims.size()) {
    throw std::invalid_argument("rotor::bucket_by_block: " + std::to_string(sizeof...(F)) +
                                " fields for a " + std::to_string(grid.dims.size()) +
                                "-dimensional grid");
  }
  const std::size_t n = data.local_size();
  const auto blocks = static_cast<std::size_t>(grid.blocks());
  std::vector<int> block(n);
  Buckets b;
  b.offsets.assign(blocks + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const Record& r = data[i];
    const std::int64_t keys[] = {static_cast<std::int64_t>(r.*fields)...};
    block[i] = grid.block_of(keys);
    ++b.offsets[static_cast<std::size_t>(block[i]) + 1];
  }
  b.global_counts.assign(b.offsets.begin() + 1, b.offsets.end());
  for (std::size_t k = 0; k < blocks; ++k) {
    b.offsets[k + 1] += b.offsets[k];
  }
  b.order.resize(n);
  std::vector<std::int64_t> next(b.offsets.begin(), b.offsets.end() - 1);
  for (std::size_t i = 0; i < n; ++i) {
    b.order[static_cast<std::size_t>(next[static_cast<std::size_t>(block[i])]++)] = i;
  }
  if (data.distribution() == Distribution::distributed && blocks > 0) {
    detail::collective().allreduce_sum(b.global_counts.data(), b.global_counts.size());
  }
  return b;
}

/// Load imbalance of per-block (or per-worker) record counts: max / mean (1.0 is perfect).
double imbalance(const std::vector<std::int64_t>& loads);

} // namespace rotor
