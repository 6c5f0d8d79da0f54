#pragma once
/// \file
/// Which array blocks move between ranks, and when: the footprint of each cell (the elements it
/// may touch), the transfers after each step to the ranks of the next cells that touch the same
/// elements, and at the end which rank holds the final value of each block.

#include "Box.h"
#include "Schedule.h"
#include "rotor/runtime/detail/Engine.h"

#include <vector>

namespace rotor::detail {

/// The elements of array `a` (spec array `spec_array`) that cell `cell` of `s` may touch.
Box footprint(const codegen::LoopSpec& spec, int spec_array, const ArrayBinding& a,
              const Schedule& s, int cell);

/// True when some dimension of the array follows a partition field (its blocks move as boxes);
/// otherwise a written array is synced by comparing against a snapshot.
bool follows_fields(const codegen::LoopSpec& spec, int spec_array, const Schedule& s);

struct Transfer {
  int after_step = 0;
  int needed_by = 0; ///< the step whose cell first reads it on the receiving rank
  int from = 0, to = 0;
  int array = 0; ///< index into the bindings
  Box box;
};

struct MovePlan {
  std::vector<Transfer> transfers;         ///< in-loop, ordered by step
  std::vector<std::vector<Box>> end_owned; ///< [array] boxes, with end_owner
  std::vector<std::vector<int>> end_owner;
  std::vector<int> box_arrays;  ///< arrays moved as boxes
  std::vector<int> diff_arrays; ///< written arrays synced by difference
};

/// `skewed_keys`: the schedule's fields are skewed keys, so no array's blocks follow them (every
/// written array is synced by difference).
MovePlan plan_moves(const codegen::LoopSpec& spec, const std::vector<ArrayBinding>& arrays,
                    const std::vector<int>& spec_index, const Schedule& s, bool skewed_keys);

} // namespace rotor::detail
