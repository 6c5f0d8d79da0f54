#include "Failure.h"

#include "PeerWatch.h"

#define OMPI_SKIP_MPICXX 1 // the C API only
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

namespace rotor::detail {
namespace {

int failure_rank = 0;
int failure_size = 1;
bool failure_uses_mpi = false;

bool mpi_usable() {
  int initialised = 0, finalised = 0;
  MPI_Initialized(&initialised);
  MPI_Finalized(&finalised);
  return initialised && !finalised;
}

[[noreturn]] void abort_job(int code) {
  peer_watch_announce_leaving(); // the peers hear of a deliberate end, not a lost rank
  std::fflush(stdout);
  std::fflush(stderr);
  if (failure_uses_mpi && mpi_usable()) {
    MPI_Abort(MPI_COMM_WORLD, code);
  }
  std::_Exit(code);
}

std::string describe_current_exception() {
  std::exception_ptr e = std::current_exception();
  if (!e) {
    return "std::terminate called without an active exception";
  }
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& ex) {
    return std::string("uncaught exception: ") + ex.what();
  } catch (...) {
    return "uncaught exception of a non-standard type";
  }
}

[[noreturn]] void on_terminate() {
  std::string what = describe_current_exception();
  std::fprintf(stderr, "[rank %d] rotor: %s; aborting all %d ranks\n", failure_rank, what.c_str(),
               failure_size);
  abort_job(1);
}

} // namespace

void install_failure_handlers(Comm& comm) {
  failure_rank = comm.rank();
  failure_size = comm.size();
  failure_uses_mpi = comm.uses_mpi();
  if (failure_uses_mpi) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  }
  std::set_terminate(on_terminate);
}

void abort_all_ranks(int code) {
  abort_job(code);
}

void report_mpi_error(int rank, const char* operation, const char* error_text) {
  std::fprintf(stderr, "[rank %d] rotor: %s failed: %s; aborting all ranks\n", rank, operation,
               error_text);
  abort_job(3);
}

void abort_if_unwinding(Comm& comm) {
  if (std::uncaught_exceptions() == 0 || !comm.uses_mpi() || comm.size() < 2) {
    return;
  }
  std::fprintf(stderr,
               "[rank %d] rotor: the Session was destroyed by an exception on this rank; "
               "aborting all %d ranks (the others may be waiting in a collective)\n",
               comm.rank(), comm.size());
  abort_job(1);
}

} // namespace rotor::detail
