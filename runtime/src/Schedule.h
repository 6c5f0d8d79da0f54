#pragma once
/// \file
/// The schedule of one parallel loop: blocks per partition field, cells (one block of every
/// field), which worker runs which cell at which step. Built from the plan kind and the worker
/// count; independent of the data except through the block boundaries.

#include "rotor/distarray/Partition.h"
#include "rotor/runtime/Codegen.h"

#include <cstdint>
#include <vector>

namespace rotor::detail {

struct Schedule {
  codegen::Kind kind = codegen::Kind::serial;
  int workers = 1;                   ///< workers taking part (ranks x threads, or threads)
  int threads = 1;                   ///< workers per rank
  std::vector<int> field_keys;       ///< key index of each partition field
  std::vector<int> blocks;           ///< blocks per field
  std::vector<std::int64_t> key_min; ///< smallest key value per field (boundaries are relative)
  std::vector<Boundaries> bounds;    ///< per field
  /// Cache blocks per block, per field: block b of field j is cut into tiles[j] parts (balanced
  /// by record counts) so that the array rows one part of every field touches fit the cache; a
  /// cell's records are grouped by these parts (its tiles). All 1: blocks are not cut.
  std::vector<int> tiles;
  /// Per field: the boundaries of its blocks[j] * tiles[j] parts (block b: parts b * tiles[j]
  /// to (b + 1) * tiles[j]); empty when tiles are all 1.
  std::vector<Boundaries> tile_bounds;
  /// Per field: the layout's histogram counts bins of 2^bin_shift[j] key values (0: exact); the
  /// tile boundaries fall on bins.
  std::vector<int> bin_shift;
  int cells = 1;
  std::vector<int> cell_worker;        ///< worker whose records a cell's records are
  std::vector<std::vector<int>> steps; ///< steps[s][worker] = cell or -1

  int fields() const { return static_cast<int>(field_keys.size()); }
  /// Block coordinate of `cell` along field `j`.
  int coordinate(int cell, int j) const;
  int cell_of(const int* coords) const;
  /// Key range [first, last) of field j in block b.
  std::int64_t block_first(int j, int b) const { return key_min[j] + bounds[j].starts[b]; }
  std::int64_t block_end(int j, int b) const { return key_min[j] + bounds[j].starts[b + 1]; }
  /// Block of key value v along field j (values outside the range: -1).
  int block_of(int j, std::int64_t v) const;
  int rank_of_worker(int w) const { return w / threads; }
  /// Tiles in one cell (the product of tiles over the fields).
  int tiles_per_cell() const;
};

/// Blocks per field and the steps for `kind` with `workers` workers (boundaries filled later).
Schedule make_schedule(codegen::Kind kind, const std::vector<int>& field_keys, int workers,
                       int threads);

/// "rotation 4x4 blocks, 4 steps" for --rotor-verbose.
const char* kind_name(codegen::Kind kind);

} // namespace rotor::detail
