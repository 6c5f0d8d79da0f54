#include "PointList.h"

namespace rotor::detail {

PointList::PointList(std::vector<std::int64_t> extents) : extents_(std::move(extents)) {
  std::size_t n = 1;
  for (auto e : extents_) {
    n *= static_cast<std::size_t>(e);
  }
  points_.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    points_[i] = i;
  }
}

void PointList::keys(std::size_t i, std::int64_t* out) const {
  std::size_t p = points_[i];
  for (int d = key_count() - 1; d >= 0; --d) {
    out[d] = static_cast<std::int64_t>(p % static_cast<std::size_t>(extents_[d]));
    p /= static_cast<std::size_t>(extents_[d]);
  }
}

void append_step_points(std::vector<std::uint64_t>& out, const Schedule& sched, std::size_t st,
                        int workers, const std::vector<std::int64_t>& ext, const LoopLayout* layout,
                        const PointList* points) {
  for (int w = 0; w < workers; ++w) {
    const int cell = sched.steps[st][w];
    if (cell < 0) {
      continue;
    }
    if (points != nullptr) {
      out.insert(out.end(), points->points() + layout->seg_begin[cell],
                 points->points() + layout->seg_end[cell]);
      continue;
    }
    std::vector<std::int64_t> lo(ext.size(), 0), hi(ext);
    for (int j = 0; j < sched.fields(); ++j) {
      const int b = sched.coordinate(cell, j);
      lo[sched.field_keys[j]] = sched.block_first(j, b);
      hi[sched.field_keys[j]] = sched.block_end(j, b);
    }
    bool empty = false;
    for (std::size_t d = 0; d < ext.size(); ++d) {
      empty = empty || lo[d] >= hi[d];
    }
    for (std::vector<std::int64_t> p = lo; !empty;) { // row-major, like run_box
      std::uint64_t linear = 0;
      for (std::size_t d = 0; d < ext.size(); ++d) {
        linear = linear * static_cast<std::uint64_t>(ext[d]) + static_cast<std::uint64_t>(p[d]);
      }
      out.push_back(linear);
      std::size_t d = ext.size();
      while (d > 0 && ++p[d - 1] == hi[d - 1]) {
        p[d - 1] = lo[d - 1];
        --d;
      }
      empty = d == 0; // wrapped around: the box is done
    }
  }
}

} // namespace rotor::detail
