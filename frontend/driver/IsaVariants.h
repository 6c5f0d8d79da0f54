#pragma once
/// \file
/// Linked programs built once per x86-64 ISA level behind a launcher: `rotor-cc -O3 prog.cpp -o
/// prog` writes prog.x86-64 (the command as given), prog.x86-64-v3 and prog.x86-64-v4 (the same
/// plus -march=<level>, and -ffp-contract=off unless the command sets -ffp-contract) and prog, a
/// copy of tools/isa-launcher that execs the fastest build the CPU runs. Why:
/// docs/design/isa-variants.md.

#include "DriverConfig.h"

#include <string>
#include <vector>

namespace rotor::driver {

/// Whether the link command `args` (the user's arguments, without the compiler) gets ISA
/// variants: the configuration names levels and a launcher, the command names its output with
/// `-o`, builds an executable (no -shared, -r) and chooses no instruction set itself (-march=,
/// -mcpu=, -mavx..., -msse..., -mfma).
bool wants_isa_variants(const std::vector<std::string>& args, const DriverConfig& config);

/// Runs `compile` (a full host compiler command that links to `output`) once per level with the
/// output renamed to `output.<level>` (the baseline: `output.x86-64`), then copies the launcher to
/// `output`. Returns the first failing exit status, or 0.
int link_isa_variants(const std::vector<std::string>& compile, const std::string& output,
                      const DriverConfig& config, bool verbose,
                      int (*run)(const std::vector<std::string>&, bool));

} // namespace rotor::driver
