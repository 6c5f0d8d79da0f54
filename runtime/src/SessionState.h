#pragma once
/// \file
/// What the engine needs from the session: the Comm, the TBB arena and the settings. A process
/// without a Session starts an implicit one at its first loop (src/ImplicitSession.cpp).

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
/// The active state: the Session's; without one, the implicit session's, started here by the
/// first call of a process that has had no Session yet; after a session ended, a
/// single-process state (threads from ROTOR_THREADS or 1).
Session::State& session_state();

/// src/ImplicitSession.cpp: the session rotor::codegen::MainSession or the first loop started
/// (nullptr if none), and starting one (from ROTOR_* variables) for a loop that finds no session.
/// A bad setting ends the program with its message (exit status 2).
Session* implicit_session();
Session* start_implicit_session();
} // namespace detail

} // namespace rotor
