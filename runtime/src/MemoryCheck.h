#pragma once
/// \file
/// A loop's memory estimate (issue 8). Not for user code.

#include "rotor/runtime/detail/Engine.h"

#include <cstddef>

namespace rotor::detail {

/// Before the first execution of each loop site: estimates the memory this rank needs on top of
/// what is already allocated (a private copy of every buffered array per worker slot, one copy of
/// the local records while they move between ranks, and with --rotor-checkpoint one snapshot of
/// the bound arrays) and compares it with the memory available to this rank (MemAvailable of
/// /proc/meminfo divided by the ranks on this node; ROTOR_MEMORY_AVAILABLE=BYTES overrides it).
/// When any rank's need exceeds its share, every rank throws std::runtime_error naming the loop,
/// the rank and the amounts, instead of the OS killing a process mid-loop. Collective.
void check_loop_memory(const codegen::LoopSpec& spec, SpaceAccess& space,
                       std::size_t bound_array_bytes, std::size_t buffered_array_bytes, int slots);

} // namespace rotor::detail
