#pragma once
/// \file
/// Checkpoint settings (parsed with the other --rotor-* flags); the run_loop hooks are in
/// CheckpointHooks.h. See docs/design/checkpoints.md.

#include "rotor/runtime/Session.h"

#include <string>

namespace rotor::detail {

/// Handles --rotor-checkpoint=DIR, --rotor-checkpoint-every=N and --rotor-resume; false for any
/// other flag. Throws SettingsError on a bad value.
bool parse_checkpoint_flag(const std::string& name, const std::string& value, bool has_value,
                           SessionSettings& s);

/// Fills unset values from ROTOR_CHECKPOINT, ROTOR_CHECKPOINT_EVERY, ROTOR_RESUME and checks the
/// combination (--rotor-resume needs a directory).
void finish_checkpoint_settings(SessionSettings& s, bool use_environment);

/// At the end of the Session: warns (rank 0) when a resumed checkpoint held more loop executions
/// than the program ran (nothing was restored).
void checkpoint_at_session_end();

} // namespace rotor::detail
