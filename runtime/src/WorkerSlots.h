#pragma once
/// \file
/// Running one step's cells: `fn(slot)` for each active slot, concurrently in the session's
/// arena, optionally while the calling thread drives MPI progress.

#include "Arena.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <vector>

namespace rotor::detail {

/// Runs `fn(slot)` for the slots in `active` concurrently in the session's arena.
template <class Fn> void run_slots(const std::vector<int>& active, Fn&& fn) {
  if (active.size() == 1) {
    fn(active[0]);
    return;
  }
  if (active.empty()) {
    return;
  }
  arena_run(active.size(), [&](std::size_t i) { fn(active[i]); });
}

/// Like run_slots, but the slots run on the arena's worker threads while this thread drives MPI
/// progress: `poll()` advances the transfers in flight and returns whether any still are. It is
/// called with a backoff (50 us doubling to 2 ms), because on a full machine every wake-up of
/// this thread takes a core from a worker (a 20 us poll halved np 2 throughput on 2 cores); once
/// nothing is in flight, this thread sleeps until the slots are done.
template <class Fn, class Poll>
void run_slots_polling(const std::vector<int>& active, Fn&& fn, Poll&& poll) {
  std::mutex m;
  std::condition_variable done;
  int remaining = static_cast<int>(active.size());
  std::exception_ptr error;
  const auto body = [&](std::size_t i) { // joined by the mutex m, which TSan sees (Arena.h)
    std::exception_ptr e;
    try {
      fn(active[i]);
    } catch (...) {
      e = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(m);
    if (e && !error) {
      error = e;
    }
    if (--remaining == 0) {
      done.notify_one();
    }
  };
  arena_enqueue(active.size(), SlotBody(body));
  constexpr auto first = std::chrono::microseconds(50), longest = std::chrono::microseconds(2000);
  auto interval = first;
  bool in_flight = true;
  std::unique_lock<std::mutex> lock(m);
  while (remaining > 0) {
    if (!in_flight) {
      done.wait(lock, [&] { return remaining == 0; });
      break;
    }
    lock.unlock();
    in_flight = poll();
    lock.lock();
    if (in_flight) {
      done.wait_for(lock, interval, [&] { return remaining == 0; });
      interval = std::min(interval * 2, longest);
    }
  }
  if (error) {
    std::rethrow_exception(error);
  }
}

} // namespace rotor::detail
