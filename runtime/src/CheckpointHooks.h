#pragma once
/// \file
/// Checkpoint hooks of run_loop (see docs/design/checkpoints.md). Not for user code.
///
/// With `--rotor-checkpoint=DIR`, every loop execution (every run_loop call) is counted; after
/// every `--rotor-checkpoint-every=N`-th one the runtime writes DIR/rotor-checkpoint.h5
/// atomically: each DistArray bound to a loop so far, the records of every Dataset a loop writes
/// (LDA topics), and the execution count. With `--rotor-resume` the first K executions (K from
/// the checkpoint) are skipped and, at the end of the K-th, the saved state is put back.

#include "rotor/runtime/detail/Engine.h"

#include <vector>

namespace rotor::detail {

/// True when --rotor-checkpoint is set (the hooks below do nothing otherwise).
bool checkpoint_enabled();

/// Before a loop execution: true when the checkpoint being resumed already contains it (the
/// caller skips the loop). Also puts back saved arrays that are bound here for the first time
/// since the restore.
bool checkpoint_before_execution(const codegen::LoopSpec& spec, SpaceAccess& space,
                                 std::vector<ArrayBinding>& arrays);

/// After a loop execution (run or skipped): counts it, snapshots its arrays and written records,
/// writes a checkpoint every N executions, and restores the saved state after the last skipped
/// one. `arrays` lists every bound array (buffered ones included). `reductions`: the bytes of the
/// loop's reduction variables; logged when run, replaced by the logged ones when skipped.
void checkpoint_after_execution(const codegen::LoopSpec& spec, SpaceAccess& space,
                                std::vector<ArrayBinding>& arrays, bool skipped,
                                std::vector<char>& reductions);

} // namespace rotor::detail
