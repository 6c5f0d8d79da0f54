#pragma once
/// \file
/// Moves array blocks between ranks during a loop: the transfers a step produces are posted at
/// once (packed copies), and their receives are completed only before the step that first needs
/// them, so they travel while the workers compute. The engine's thread drives MPI progress
/// (poll()) meanwhile.

#include "Comm.h"
#include "MovePlan.h"

#include <chrono>
#include <cstddef>
#include <deque>
#include <vector>

namespace rotor::detail {

/// Reused message buffers: fresh large buffers cost a page fault per 4 KiB on every loop.
class BufferPool {
public:
  std::vector<char> take(std::size_t bytes);
  void give(std::vector<char>&& v);

private:
  std::vector<std::vector<char>> free_;
};

BufferPool& buffer_pool();

std::size_t box_bytes(const Box& b, const ArrayBinding& a);

struct CommStats {
  double transfer_s = 0; ///< from posting a batch to seeing it complete
  double exposed_s = 0;  ///< of that, time the rank waited with no cell running
  std::size_t bytes = 0;
};

class Mover {
public:
  Mover(const MovePlan& plan, std::vector<ArrayBinding>& arrays, CommStats& stats)
      : plan_(plan), arrays_(arrays), stats_(stats) {}

  /// Posts the transfers produced by step `st`.
  void post(int st);
  /// Completes and applies every receive needed before step `st` runs.
  void complete_needed(int st);
  /// Lets MPI progress pending transfers (called while workers compute); returns whether any
  /// receive or send is still in flight.
  bool poll();
  bool idle() const { return batches_.empty() && sends_.empty(); }
  void complete_all();

private:
  using Clock = std::chrono::steady_clock;
  struct Batch {
    int needed_by = 0;
    std::vector<std::vector<const Transfer*>> in;
    std::vector<std::vector<char>> recv_buf;
    std::vector<Comm::Request> recvs;
    Clock::time_point posted;
    bool arrived = false, applied = false;
  };
  struct Send {
    std::vector<char> buffer;
    std::vector<Comm::Request> request;
  };

  void post_receives(Batch& b, int tag);
  void post_sends(const std::vector<std::vector<const Transfer*>>& out, int tag);
  void finish(Batch& b);
  void prune();

  const MovePlan& plan_;
  std::vector<ArrayBinding>& arrays_;
  CommStats& stats_;
  std::size_t cursor_ = 0;
  std::vector<Batch> batches_;
  std::deque<Send> sends_;
};

} // namespace rotor::detail
