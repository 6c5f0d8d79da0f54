#pragma once
/// \file
/// Serial code's write-only file opens on ranks other than 0 go to a private shadow file
/// (FileWritesOnce.cpp says how and which opens).

namespace rotor::detail {

/// Turns shadowing on (a multi-rank session on rank != 0, without --rotor-all-output) or off.
void shadow_file_writes(bool on);

} // namespace rotor::detail
