// The session of a program that constructs none: started by rotor-cc's MainSession at the top of
// main, or by the first parallel loop, loader or rotor::is_root() call from the ROTOR_*
// variables; ended when main returns or at exit.
#include "SessionState.h"
#include "rotor/distarray/detail/Collective.h"
#include "rotor/runtime/Codegen.h"

#include <atomic>
#include <cerrno> // program_invocation_name
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>

namespace rotor {
namespace {

std::mutex implicit_mutex;
std::unique_ptr<Session> implicit;
/// implicit.get() for Session's constructor, which runs under implicit_mutex when started here.
std::atomic<Session*> implicit_ptr{nullptr};
bool implicit_started = false; ///< once per process: MPI cannot start twice

void end_implicit_session() {
  std::unique_ptr<Session> ending;
  {
    std::lock_guard<std::mutex> lock(implicit_mutex);
    ending = std::move(implicit);
    implicit_ptr = nullptr;
  }
  ending.reset(); // finalizes MPI unless the program's own Session took it over
}

/// Starts the implicit session (the caller holds implicit_mutex). Nobody could catch a bad
/// setting here, so it ends the program with "PROGRAM: error: MESSAGE", as the examples do.
Session* start_locked(int& argc, char**& argv) {
  implicit_started = true;
  try {
    implicit = std::make_unique<Session>(argc, argv);
    implicit_ptr = implicit.get();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", program_invocation_short_name, e.what());
    std::exit(2);
  }
  static const bool at_exit = std::atexit(end_implicit_session) == 0;
  (void)at_exit;
  return implicit.get();
}

/// A loader that runs before the first parallel loop (distarray's first collective call) starts
/// the session too, so it reads this rank's share and the loop sees the same distribution.
[[maybe_unused]] const bool collective_starter = [] {
  detail::set_collective_starter([] { detail::session_state(); });
  return true;
}();

/// argv for a session that has only the environment: the program's name, no flags.
struct NoArguments {
  int argc = 1;
  char* args[2] = {program_invocation_name, nullptr};
  char** argv = args;
};

} // namespace

namespace detail {

Session* implicit_session() {
  return implicit_ptr.load();
}

Session* start_implicit_session() {
  std::lock_guard<std::mutex> lock(implicit_mutex);
  if (Session* s = Session::current()) {
    return s; // another thread started it meanwhile
  }
  if (implicit_started) {
    return nullptr; // started and taken over or ended: the runtime does not start twice
  }
  NoArguments none;
  return start_locked(none.argc, none.argv);
}

} // namespace detail

namespace codegen {

MainSession::MainSession(int& argc, char**& argv) {
  std::lock_guard<std::mutex> lock(implicit_mutex);
  if (Session::current() == nullptr && !implicit_started) {
    start_locked(argc, argv);
    owns_ = true;
  }
}

MainSession::MainSession() {
  NoArguments none;
  std::lock_guard<std::mutex> lock(implicit_mutex);
  if (Session::current() == nullptr && !implicit_started) {
    start_locked(none.argc, none.argv);
    owns_ = true;
  }
}

MainSession::~MainSession() {
  if (owns_) {
    end_implicit_session();
  }
}

} // namespace codegen
} // namespace rotor
