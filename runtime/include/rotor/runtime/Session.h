#pragma once
/// \file
/// rotor::Session: the process's Rotor runtime (MPI ranks, TBB threads, settings).
///
/// \code
///   int main(int argc, char** argv) {
///     rotor::Session session(argc, argv);   // strips --rotor-* flags from argv
///     ...
///   }
/// \endcode
///
/// Launched by mpirun it initialises MPI (MPI_Init_thread); otherwise it is a single process.
/// Settings come from `--rotor-NAME=VALUE` flags (removed from argv) or `ROTOR_NAME` environment
/// variables: threads, verbose, record-order, replay-order, trace, metrics, checkpoint, ...
/// Non-root ranks' stdout is discarded so a serial program prints once.
/// One Session per process; it must outlive every parallel loop.

namespace rotor {

class Session {
public:
  Session(int& argc, char**& argv);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  int rank() const;    ///< this process's MPI rank (0 without MPI)
  int ranks() const;   ///< number of MPI ranks (1 without MPI)
  int threads() const; ///< worker threads per rank
  bool is_root() const { return rank() == 0; }
};

} // namespace rotor
