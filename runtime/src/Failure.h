#pragma once
/// \file
/// Rotor's failure path: no rank is ever left waiting for a peer that has failed.
///
/// - MPI errors return to Comm (MPI_ERRORS_RETURN on MPI_COMM_WORLD), which reports them as
///   "[rank R] rotor: MPI_Allreduce failed: ..." and aborts the job (report_mpi_error).
/// - An exception that escapes main, or any std::terminate, on one rank prints
///   "[rank R] rotor: uncaught exception: WHAT; aborting all N ranks" and calls MPI_Abort.
/// - A Session destroyed by an exception in flight aborts every rank instead of calling
///   MPI_Finalize (which would wait forever for ranks still inside a collective).
/// - A rank without progress (a body that never returns, a stopped process) is caught by the
///   progress watchdog (Watchdog.cpp, --rotor-timeout), which prints its line and calls
///   abort_all_ranks.
/// A rank killed by a signal is detected by the launcher: Open MPI's mpirun kills the other ranks
/// and names the lost rank ("process rank 1 ... exited on signal 9"); see runtime/README.md.
/// Rotor's lost-rank detector (PeerWatch.h) names it first, with its host; abort_all_ranks tells
/// it this rank leaves on purpose.

#include "Comm.h"

namespace rotor::detail {

/// Installs the handlers above for this process (called once by Session when MPI is used).
void install_failure_handlers(Comm& comm);

/// Prints "[rank R] rotor: OPERATION failed: ERROR_TEXT; aborting all ranks" and aborts the job.
[[noreturn]] void report_mpi_error(int rank, const char* operation, const char* error_text);

/// Flushes stdout/stderr and ends every rank (MPI_Abort; _Exit without MPI). The message is the
/// caller's to print first.
[[noreturn]] void abort_all_ranks(int code);

/// Called from ~Session: when an exception is unwinding the stack on a multi-rank job, reports it
/// and aborts every rank (returns otherwise).
void abort_if_unwinding(Comm& comm);

} // namespace rotor::detail
