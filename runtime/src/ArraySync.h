#pragma once
/// \file
/// Makes every rank's copy of the written arrays equal after (or between) the steps of a loop:
/// box-moved arrays from the rank of the last cell that touched each box, the others by
/// difference against a snapshot taken before.

#include "MovePlan.h"

#include <vector>

namespace rotor::detail {

/// Makes every rank's copy of the box-moved arrays whole: the rank of the last cell that
/// touched a box sends it to every other rank, point to point, straight from and into the
/// arrays when the box is a contiguous range (row blocks); other boxes go through a packed copy.
void end_sync(const MovePlan& plan, std::vector<ArrayBinding>& arrays);

/// Copies of the arrays synced by difference, as they were before the loop (or the last sync).
class DiffSnapshots {
public:
  DiffSnapshots(const std::vector<int>& diff_arrays, const std::vector<ArrayBinding>& arrays);
  /// Every rank sends the elements it changed since the snapshot; applied in rank order (exact:
  /// each changed element has one writer). Collective.
  void sync(std::vector<ArrayBinding>& arrays) const;
  /// Takes the snapshot again (after a sync between steps).
  void refresh(const std::vector<ArrayBinding>& arrays);

private:
  std::vector<int> arrays_;
  std::vector<std::vector<char>> before_;
};

} // namespace rotor::detail
