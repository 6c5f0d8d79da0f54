#pragma once
/// \file
/// The communication layer: every MPI call of Rotor goes through Comm (typed non-blocking block
/// sends and receives, allreduce, allgather, all-to-all). Without MPI (one process) every
/// collective is the identity and point-to-point calls are errors.
/// Only the thread that created the Session calls Comm (MPI_THREAD_SERIALIZED suffices).

#include "rotor/distarray/detail/ElementType.h"

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace rotor::detail {

class Comm {
public:
  /// A pending non-blocking send or receive.
  struct Request {
    void* handle = nullptr; ///< MPI_Request, boxed (keeps mpi.h out of this header)
    int peer = -1;          ///< the other rank (named by the progress watchdog)
  };

  /// Initialises MPI when `use_mpi`; otherwise a single process.
  explicit Comm(bool use_mpi);
  ~Comm();
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;

  bool uses_mpi() const { return use_mpi_; }
  int rank() const { return rank_; }
  int size() const { return size_; }

  Request isend(const void* data, std::size_t bytes, int dest, int tag);
  Request irecv(void* data, std::size_t bytes, int source, int tag);
  /// Typed forms: `count` elements of a trivially copyable T.
  template <class T> Request isend(const T* data, std::size_t count, int dest, int tag) {
    static_assert(std::is_trivially_copyable_v<T>, "Comm sends trivially copyable elements");
    return isend(static_cast<const void*>(data), count * sizeof(T), dest, tag);
  }
  template <class T> Request irecv(T* data, std::size_t count, int source, int tag) {
    static_assert(std::is_trivially_copyable_v<T>, "Comm receives trivially copyable elements");
    return irecv(static_cast<void*>(data), count * sizeof(T), source, tag);
  }
  void wait_all(std::vector<Request>& requests);
  /// Tests (progresses) the requests; completed ones are released. True when all are done.
  bool test_all(std::vector<Request>& requests);

  void barrier();
  void allreduce_sum(double* values, std::size_t count);
  void allreduce_sum(float* values, std::size_t count);
  void allreduce_sum(std::int64_t* values, std::size_t count);
  void allreduce_max(std::int64_t* values, std::size_t count);
  void allreduce_min(std::int64_t* values, std::size_t count);
  /// Sums `count` elements of the given element type.
  void allreduce_sum_typed(void* values, std::size_t count, ElementType element_type);
  void broadcast(void* data, std::size_t bytes, int root);
  /// Concatenation of every rank's bytes in rank order; `offsets` gets size()+1 entries.
  std::vector<char> allgatherv(const void* data, std::size_t bytes,
                               std::vector<std::size_t>& offsets);
  /// The same into `out` (reused: its pages are not faulted in again on every call).
  void allgatherv_into(const void* data, std::size_t bytes, std::vector<char>& out,
                       std::vector<std::size_t>& offsets);
  std::vector<std::vector<char>> alltoallv(const std::vector<std::vector<char>>& send);
  [[noreturn]] void abort(const char* message);

private:
  bool use_mpi_ = false;
  bool initialised_here_ = false;
  int rank_ = 0;
  int size_ = 1;
};

/// The session's Comm (a single-process one when no Session exists).
Comm& comm();

} // namespace rotor::detail
