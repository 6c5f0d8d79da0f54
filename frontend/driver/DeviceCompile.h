#pragma once
/// \file
/// The nvcc step of rotor-cc: a rewritten translation unit with a device loop (a `device(gpu)`
/// pragma, or any annotated loop under `--device=gpu`, emitted as a `ROTOR_DEVICE_LAMBDA` body)
/// is compiled by nvcc, with the host compiler as nvcc's -ccbin and the command's own flags
/// (include paths, definitions and the standard directly; the rest through -Xcompiler), into an
/// object the host compiler then links with the CUDA runtime (rotor-cc.cfg's `cuda_link`).

#include "DriverConfig.h"

#include <string>
#include <vector>

namespace rotor::driver {

/// True when `rewritten` (rotor-cc's output for one file) holds a device loop body.
bool has_device_body(const std::string& rewritten);

/// The nvcc command that compiles `source` to `object`, from the host compile command
/// `host_command` (compiler first; its sources, -c, -o and link-only arguments are dropped).
std::vector<std::string> nvcc_command(const std::vector<std::string>& host_command,
                                      const std::vector<std::size_t>& source_positions,
                                      const std::string& source, const std::string& object,
                                      const DriverConfig& config);

} // namespace rotor::driver
