#pragma once
/// \file
/// Where the records of a loop are: the schedule's block boundaries (histogram-balanced), the
/// move of each record to the rank of its block, and this rank's records sorted by cell so a
/// cell is a contiguous segment. Cached per (loop, workers, kind, ranks) in the space itself (a
/// Dataset keeps its loops' layouts: SpaceAccess::layouts) and validated on reuse.

#include "Schedule.h"
#include "rotor/runtime/detail/Engine.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace rotor::detail {

/// Keys of local record i after the plan's transformation (unimodular skew), all keys.
using KeyFunction = std::function<void(std::size_t, std::int64_t*)>;

/// One phase of making a layout: its name ("ranges", "histograms", ...), wall-clock seconds and
/// the process's CPU seconds over it.
struct LayoutPhase {
  const char* name;
  double seconds, cpu_seconds;
};

struct LoopLayout {
  Schedule schedule;
  std::vector<std::size_t> seg_begin, seg_end; ///< per cell: local records [begin, end)
  /// Tile t of cell c holds local records [tile_starts[c * T + t], tile_starts[c * T + t + 1])
  /// (T = schedule.tiles_per_cell()); empty: a cell is one tile.
  std::vector<std::size_t> tile_starts;
  const char* data = nullptr; ///< validation: the records' address and count
  std::size_t count = 0;
  std::uint64_t version = 0; ///< the records' change counter when last laid out or checked
  /// Seconds of each phase of the layout made by this call of record_layout ("ranges",
  /// "histograms", ...; --rotor-verbose prints them); empty when a cached layout was reused.
  std::vector<LayoutPhase> phase_seconds;
};

struct LayoutRequest {
  const codegen::LoopSpec* spec = nullptr;
  codegen::Kind kind = codegen::Kind::serial; ///< the schedule's kind (unimodular: the base)
  std::vector<int> field_keys;
  int workers = 1, threads = 1, ranks = 1, rank = 0; ///< ranks = 1: records do not move
  bool ordered = false;
  const std::vector<std::vector<std::int64_t>>* matrix = nullptr; ///< unimodular skew
  /// Blocks per partition field wanted (--rotor-blocks; rounded up to a multiple of the
  /// schedule's blocks); 0: the schedule's blocks, cut into tiles that fit `cache_bytes`.
  int blocks = 0;
  std::size_t cache_bytes = 0;        ///< array rows one tile may touch (0: no tiles)
  std::vector<std::size_t> row_bytes; ///< per partition field: array bytes per key value
};

/// Returns the layout for `request` over `space` (moving and sorting records as needed).
const LoopLayout& record_layout(const LayoutRequest& request, SpaceAccess& space);

/// Blocks of an IndexSpace (no records move): equal boundaries over each partitioned dimension.
Schedule index_schedule(const LayoutRequest& request, const std::vector<std::int64_t>& extents);

} // namespace rotor::detail
