#pragma once
/// \file
/// Under mpirun every rank but 0 keeps quiet: its stdout is discarded and its serial code's file
/// writes go to shadow files (docs/user/running.md, "Output under mpirun: each line and each file
/// once"). The session does it when it starts; in a program built by rotor-cc it is done from the
/// process's start (QuietRanks.cpp), so lines printed and files written before the runtime
/// starts (a `main` without a pragma) are also once.

namespace rotor::detail {

/// Discards this rank's stdout and shadows its file writes (a rank other than 0).
void quiet_this_rank();

} // namespace rotor::detail
