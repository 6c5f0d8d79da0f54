#pragma once
#include "OrderLog.h"

namespace rotor::detail {

/// --rotor-validate: datasets keep record ids for the session (like recording does).
void start_order_validation(bool on);
/// --rotor-validate: while `sink` is set, run_loop computes each loop's global order and
/// record_loop_order also stores it in `*sink` (nullptr: off).
void set_validation_sink(std::vector<std::uint64_t>* sink);
/// The sink set above (nullptr: none). Index-space loops write the linear indices of their
/// points into it directly, in the order the workers applied them (step, rank, slot).
std::vector<std::uint64_t>* validation_sink();
/// Tests: the number of records in each step of the last stepped loop that recorded its order
/// (its serial order's step boundaries; all ranks together).
std::vector<std::size_t>& last_step_sizes();

} // namespace rotor::detail
