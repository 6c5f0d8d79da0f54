#pragma once
/// \file
/// How the stepped executors cut and order a loop's records (docs/user/flags in
/// docs/user/runtime.md): `--rotor-blocks=N|auto` (blocks per partition field; auto: from the
/// rows a block touches and the cache size) and `--rotor-order-seed=S` (a fresh block order and
/// a fresh order of the cache blocks inside each block every execution, from seed S; 0: the
/// laid-out order every time). Environment: ROTOR_BLOCKS, ROTOR_ORDER_SEED.

#include <cstddef>
#include <cstdint>
#include <string>

namespace rotor::detail {

struct ScheduleSettings {
  int blocks = 0;               ///< blocks per partition field; 0: chosen from the cache size
  std::uint64_t order_seed = 1; ///< 0: no reordering between executions
};

/// The session's schedule settings (set by parse_schedule_flag / schedule_from_environment).
const ScheduleSettings& schedule_settings();

/// Parses --rotor-blocks / --rotor-order-seed; false when `name` is neither. Throws
/// SettingsError naming the flag and the value when the value is bad.
bool parse_schedule_flag(const std::string& name, const std::string& value, bool has_value);
/// ROTOR_BLOCKS, ROTOR_ORDER_SEED for the flags not given on the command line.
void schedule_from_environment();
std::string schedule_flags_help();

/// Counts an execution of the loop at FILE:LINE (run, or skipped by --rotor-resume, so a
/// resumed run draws the same orders) and returns how many came before it: the execution
/// number the order of this execution is drawn from (--rotor-order-seed).
std::uint64_t begin_loop_execution(const char* file, int line);
/// What begin_loop_execution returned last: the execution running now.
std::uint64_t current_loop_execution();
/// Forgets the counts, as at the program's start (tests: two runs in one process).
void forget_loop_executions();

/// Bytes of the level 2 cache of one core as the machine reports it (sysconf, else
/// /sys/devices/system/cpu/cpu0/cache); 1 MiB when it reports none.
std::size_t l2_cache_bytes();

} // namespace rotor::detail
