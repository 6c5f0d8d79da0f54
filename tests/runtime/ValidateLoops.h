#pragma once
// Loops for the --rotor-validate tests (ValidateTest.cpp, ValidateProgram.cpp).

#include "LoopTestUtil.h"

#include <atomic>
#include <chrono>
#include <thread>

namespace rotor::test {

/// Where the unsound loop says it is (the error message names it).
inline constexpr const char* unsound_file = "unsound.cpp";
inline constexpr int unsound_line = 41;

/// A deliberately unsound loop: its spec claims `independent` (any split of the records runs
/// concurrently), but every record rewrites the shared element W(0, 0) with non-commutative
/// arithmetic (w = w * 3 + user), so no serial order gives the parallel result. With two workers
/// on a rank, the first record of each waits (at most 5 s) after reading W(0, 0) until the other
/// has read it too, so the two read-modify-writes overlap and an update is lost; across ranks
/// every rank starts from the same W(0, 0). `arrived` counts the records that reached the
/// rendezvous (2 or more: two workers overlapped).
inline void run_unsound_loop(Dataset<Tagged>& data, DistArray<double, 2>& W,
                             std::atomic<int>& arrived) {
  codegen::LoopSpec s =
      spec(codegen::Kind::independent, {0},
           {array("W", codegen::Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}})});
  s.file = unsound_file;
  s.line = unsound_line;
  const bool rendezvous = Session::instance().threads() >= 2;
  auto body = [&](const Tagged& r, auto& W) {
    const double w = W(0, 0);
    if (rendezvous && arrived.fetch_add(1) < 2) {
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      while (arrived.load() < 2 && std::chrono::steady_clock::now() < until) {
        std::this_thread::yield();
      }
    }
    W(0, 0) = w * 3 + r.user;
  };
  std::tuple<> none;
  codegen::run_loop(s, data, tagged_keys(), std::tie(W), none, body);
}

} // namespace rotor::test
