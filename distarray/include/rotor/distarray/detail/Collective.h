#pragma once
/// \file
/// Not for user code. The one seam through which distarray/ talks to other ranks.
///
/// distarray/ must not depend on MPI or on runtime/. Whole-dataset and whole-array operations
/// (global extents, parallel loading, HDF5 output, gather) need a few collectives; they call the
/// process's Collective. Without a Session (or outside mpirun) it is a single-process
/// implementation; rotor::Session installs the MPI one (runtime/Comm).

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace rotor::detail {

class Collective {
public:
  virtual ~Collective() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual void barrier() = 0;
  /// Element-wise max / sum over all ranks, in place.
  virtual void allreduce_max(std::int64_t* values, std::size_t count) = 0;
  virtual void allreduce_sum(std::int64_t* values, std::size_t count) = 0;
  virtual void allreduce_sum(double* values, std::size_t count) = 0;
  /// Sends `bytes` bytes at `data` from `root` to every rank (in place).
  virtual void broadcast(void* data, std::size_t bytes, int root) = 0;
  /// Every rank contributes `bytes` bytes; returns all contributions concatenated in rank order,
  /// with `offsets` (size() + 1 entries) telling where each rank's part starts.
  virtual std::vector<char> allgatherv(const void* data, std::size_t bytes,
                                       std::vector<std::size_t>& offsets) = 0;
  /// Personalised exchange: `send[r]` goes to rank r; returns what each rank sent here.
  virtual std::vector<std::vector<char>> alltoallv(const std::vector<std::vector<char>>& send) = 0;
  /// Aborts every rank with `message` (after printing it once). Never returns.
  [[noreturn]] virtual void abort(const char* message) = 0;
};

/// The process's collective: single-process until a Session installs another.
Collective& collective();

/// Rank 0's `text` (an error message, empty when none) on every rank; every rank calls it.
std::string broadcast_from_root(std::string text);
/// Installs `c` (not owned; nullptr restores the single-process one). Called by rotor::Session.
void set_collective(Collective* c);
/// Called once, by the first collective() of a process that has none installed yet: the runtime
/// starts its implicit session there (which installs one), so a loader that runs before the
/// program's first parallel loop already reads its share.
void set_collective_starter(void (*starter)());

} // namespace rotor::detail
