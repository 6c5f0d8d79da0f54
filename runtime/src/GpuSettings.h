#pragma once
/// \file
/// `--rotor-gpu-memory=BYTES` (environment: ROTOR_GPU_MEMORY): the device memory the GPU
/// executor may use, in bytes, with an optional K, M or G suffix (powers of 1024): one loop's
/// execution and the records other datasets keep resident (detail/DeviceResidency.h), which
/// leave least recently used first. Default (0): the device's free memory plus what resident
/// records hold, less a margin (GpuExecutor.cpp). It is the limit of
/// gpu/MemoryPlan.h's plans; a loop whose records and arrays exceed it runs on the CPU workers
/// with a note (the executor does not stream blocks yet: docs/user/gpu.md).

#include <cstdint>
#include <string>

namespace rotor::detail {

/// The limit in bytes; 0: not given.
std::uint64_t gpu_memory_limit();

/// Sets the limit (0: the default); for tests.
void set_gpu_memory_limit(std::uint64_t bytes);

/// Parses --rotor-gpu-memory; false when `name` is another flag. Throws SettingsError naming
/// the flag and the value when the value is not a positive byte count.
bool parse_gpu_flag(const std::string& name, const std::string& value, bool has_value);
/// ROTOR_GPU_MEMORY when the flag was not given.
void gpu_from_environment();
std::string gpu_flags_help();

/// "12G" -> 12884901888; throws SettingsError naming `what` and the value (exposed for tests).
std::uint64_t parse_byte_count(const std::string& what, const std::string& value);

} // namespace rotor::detail
