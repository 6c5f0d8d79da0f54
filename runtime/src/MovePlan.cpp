#include "MovePlan.h"

#include <algorithm>

namespace rotor::detail {
namespace {

Box whole(const std::vector<std::int64_t>& shape) {
  Box b;
  b.lo.assign(shape.size(), 0);
  b.hi = shape;
  return b;
}

/// fp[step][worker]: the footprint of the worker's cell at that step (empty: no cell).
using StepFootprints = std::vector<std::vector<Box>>;

StepFootprints step_footprints(const codegen::LoopSpec& spec, int si, const ArrayBinding& a,
                               const Schedule& s) {
  const int steps = static_cast<int>(s.steps.size());
  StepFootprints fp(steps);
  for (int st = 0; st < steps; ++st) {
    fp[st].resize(s.workers);
    for (int w = 0; w < s.workers; ++w) {
      const int cell = s.steps[st][w];
      if (cell >= 0) {
        fp[st][w] = footprint(spec, si, a, s, cell);
      }
    }
  }
  return fp;
}

/// After a cell runs, what it holds goes to the ranks of the next cells that touch it.
void plan_transfers(const Schedule& s, const StepFootprints& fp, int ai, MovePlan& plan) {
  const int steps = static_cast<int>(s.steps.size());
  for (int st = 0; st < steps; ++st) {
    for (int w = 0; w < s.workers; ++w) {
      if (s.steps[st][w] < 0 || fp[st][w].empty()) {
        continue;
      }
      Region remaining{fp[st][w]};
      for (int v = 0; v < w; ++v) { // shared with a lower worker of the same step: it sends
        if (s.steps[st][v] >= 0 && !fp[st][v].empty()) {
          remaining = subtract(remaining, fp[st][v]);
        }
      }
      const int from = s.rank_of_worker(w);
      for (int later = st + 1; later < steps && !remaining.empty(); ++later) {
        std::vector<int> hit;
        for (int x = 0; x < s.workers; ++x) {
          if (s.steps[later][x] < 0 || fp[later][x].empty()) {
            continue;
          }
          Region part = intersect(remaining, fp[later][x]);
          if (part.empty()) {
            continue;
          }
          hit.push_back(x);
          const int to = s.rank_of_worker(x);
          if (to != from) {
            for (Box& b : part) {
              plan.transfers.push_back(Transfer{st, later, from, to, ai, b});
            }
          }
        }
        for (int x : hit) {
          remaining = subtract(remaining, fp[later][x]);
        }
      }
    }
  }
}

/// At the end, each element comes from the rank of the last cell that touched it.
void plan_end_owners(const Schedule& s, const StepFootprints& fp, int ai, MovePlan& plan) {
  Region claimed;
  for (int st = static_cast<int>(s.steps.size()) - 1; st >= 0; --st) {
    for (int w = 0; w < s.workers; ++w) {
      if (s.steps[st][w] < 0 || fp[st][w].empty()) {
        continue;
      }
      Region mine{fp[st][w]};
      for (const Box& c : claimed) {
        mine = subtract(mine, c);
      }
      for (Box& b : mine) {
        plan.end_owned[ai].push_back(b);
        plan.end_owner[ai].push_back(s.rank_of_worker(w));
      }
      claimed.push_back(fp[st][w]);
    }
  }
}

} // namespace

Box footprint(const codegen::LoopSpec& spec, int spec_array, const ArrayBinding& a,
              const Schedule& s, int cell) {
  Box b = whole(a.shape);
  const auto& dims = spec.arrays[spec_array].dims;
  for (std::size_t d = 0; d < a.shape.size() && d < dims.size(); ++d) {
    const codegen::Dim& dim = dims[d];
    if (dim.key < 0) {
      continue;
    }
    for (int j = 0; j < s.fields(); ++j) {
      if (s.field_keys[j] != dim.key || s.blocks[j] == 1) {
        continue; // not this field, or one block: the whole dimension
      }
      const int blk = s.coordinate(cell, j);
      const std::int64_t first = s.block_first(j, blk), end = s.block_end(j, blk);
      if (first >= end) {
        b.hi[d] = b.lo[d]; // empty block: touches nothing
        break;
      }
      b.lo[d] = std::max<std::int64_t>(0, first + dim.lo);
      b.hi[d] = std::min<std::int64_t>(a.shape[d], end + dim.hi);
      break;
    }
  }
  return b;
}

bool follows_fields(const codegen::LoopSpec& spec, int spec_array, const Schedule& s) {
  for (const codegen::Dim& dim : spec.arrays[spec_array].dims) {
    for (int fk : s.field_keys) {
      if (dim.key >= 0 && dim.key == fk) {
        return true;
      }
    }
  }
  return false;
}

MovePlan plan_moves(const codegen::LoopSpec& spec, const std::vector<ArrayBinding>& arrays,
                    const std::vector<int>& spec_index, const Schedule& s, bool skewed_keys) {
  MovePlan plan;
  plan.end_owned.resize(arrays.size());
  plan.end_owner.resize(arrays.size());
  for (std::size_t ai = 0; ai < arrays.size(); ++ai) {
    const int si = spec_index[ai];
    const codegen::ArraySpec& as = spec.arrays[si];
    if (!as.written || as.role == codegen::Role::replicated) {
      continue;
    }
    if (skewed_keys || !follows_fields(spec, si, s)) {
      plan.diff_arrays.push_back(static_cast<int>(ai));
      continue;
    }
    plan.box_arrays.push_back(static_cast<int>(ai));
    const StepFootprints fp = step_footprints(spec, si, arrays[ai], s);
    plan_transfers(s, fp, static_cast<int>(ai), plan);
    plan_end_owners(s, fp, static_cast<int>(ai), plan);
  }
  std::stable_sort(
      plan.transfers.begin(), plan.transfers.end(),
      [](const Transfer& a, const Transfer& b) { return a.after_step < b.after_step; });
  return plan;
}

} // namespace rotor::detail
