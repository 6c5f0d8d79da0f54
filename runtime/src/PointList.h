#pragma once
/// \file
/// Index spaces in a skewed (unimodular) order: the points become records of a list the layout
/// can sort like a dataset's records.

#include "Layout.h"

#include <cstdint>
#include <vector>

namespace rotor::detail {

class PointList final : public SpaceAccess {
public:
  explicit PointList(std::vector<std::int64_t> extents);
  bool is_index_space() const override { return false; }
  int key_count() const override { return static_cast<int>(extents_.size()); }
  const void* identity() const override { return this; }
  std::size_t local_count() const override { return points_.size(); }
  void keys(std::size_t i, std::int64_t* out) const override;
  std::size_t record_bytes() const override { return sizeof(std::size_t); }
  char* record_data() override { return reinterpret_cast<char*>(points_.data()); }
  std::vector<std::uint64_t>& ids() override { return ids_; }
  const std::size_t* points() const { return points_.data(); }

private:
  std::vector<std::int64_t> extents_;
  std::vector<std::size_t> points_;
  std::vector<std::uint64_t> ids_;
};

/// --rotor-validate over an index space: appends the points of step `st`'s cells to `out` as
/// linear indices, worker by worker (rank by rank, slot by slot): a box per cell, or the cell's
/// segment of `points` in a skewed order.
void append_step_points(std::vector<std::uint64_t>& out, const Schedule& sched, std::size_t st,
                        int workers, const std::vector<std::int64_t>& ext, const LoopLayout* layout,
                        const PointList* points);

} // namespace rotor::detail
