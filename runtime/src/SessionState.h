#pragma once
/// \file
/// What the engine needs from the session: the Comm, the TBB arena and the settings. A process
/// without a Session gets a lazily built single-process state (threads from ROTOR_THREADS or 1).

#include "Comm.h"
#include "rotor/runtime/Session.h"

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_arena.h>

#include <memory>

namespace rotor {

struct Session::State {
  SessionSettings settings;
  std::unique_ptr<detail::Comm> comm;
  /// Lets TBB start `threads` workers: its default is one fewer than the cores, and the arena's
  /// slots are all for workers (the calling thread drives MPI progress meanwhile).
  std::unique_ptr<oneapi::tbb::global_control> workers;
  std::unique_ptr<oneapi::tbb::task_arena> arena;
  int threads = 1;
  std::unique_ptr<std::ostream> null_out;
};

namespace detail {
/// The active state (the Session's, or the default single-process one).
Session::State& session_state();
} // namespace detail

} // namespace rotor
