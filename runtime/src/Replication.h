#pragma once
/// \file
/// Putting a dataset's records back together before a loop that every rank runs whole (serial
/// plans, skewed orders on every rank's threads).

#include "rotor/runtime/detail/Engine.h"

namespace rotor::detail {

/// Makes a distributed dataset whole on every rank (serial and skewed runs). Collective.
void replicate(SpaceAccess& space);

/// Puts the records back in the dataset's order (serial loops) when a parallel loop reordered
/// them: record i goes to position origin[i], in place (swaps along cycles).
void restore_order(SpaceAccess& space);

} // namespace rotor::detail
