// A small SGD-MF-shaped program whose rank 1 (rank 0 when alone) fails in the middle of an epoch,
// for run_failure_test.sh. Usage: runtime_failure_program MODE [--rotor-...]
//   kill    rank 1 sends itself SIGKILL inside the parallel loop of epoch 3
//   throw   rank 1 throws inside the parallel loop of epoch 3 (the engine aborts the job)
//   escape  rank 1 throws between epochs; nothing catches it (std::terminate)
//   unwind  rank 1 throws between epochs; main catches it after the Session is destroyed
//   hang    rank 1's loop body never returns in epoch 3 (for the watchdog, --rotor-timeout)
//   stop    rank 1 stops itself with SIGSTOP inside the loop of epoch 3 (the waiting rank 0
//           must notice: a stopped rank cannot print)
//   none    no failure (the program finishes and prints "finished")
// Every epoch sleeps a little so the other ranks are waiting in a collective when rank 1 fails.

#include "LoopTestUtil.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>
#include <unistd.h>

using namespace rotor;
using namespace rotor::test;
using codegen::Kind;
using codegen::Role;

namespace {

int run(int argc, char** argv, const std::string& mode) {
  Session session(argc, argv);
  auto records = make_ratings(4000, 64, 48, 5);
  Dataset<Rating> ratings(records);
  DistArray<float, 2> W({64, 8}), H({48, 8});
  W.fill_normal(0.f, 0.1f, 1);
  H.fill_normal(0.f, 0.1f, 2);
  auto s = spec(Kind::rotation, {0, 1},
                {array("W", Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}),
                 array("H", Role::partitioned, 1, true, {{1, 0, 0}, {-1, 0, 0}})});
  const bool failing_rank = session.rank() == (session.ranks() > 1 ? 1 : 0);
  for (int epoch = 0; epoch < 40; ++epoch) {
    std::atomic<bool> first{true};
    auto body = [&](const Rating& r, auto& W, auto& H) {
      if (failing_rank && epoch == 3 && first.exchange(false)) {
        if (mode == "kill") {
          std::raise(SIGKILL);
        } else if (mode == "throw") {
          throw std::runtime_error("test failure inside the loop");
        } else if (mode == "hang") {
          for (;;) {
            std::this_thread::sleep_for(std::chrono::seconds(1));
          }
        } else if (mode == "stop") {
          std::raise(SIGSTOP);
        }
      }
      float err = r.value - W.row(r.user).dot(H.row(r.item));
      W.row(r.user) += 0.01f * err * H.row(r.item);
      H.row(r.item) += 0.01f * err * W.row(r.user);
    };
    std::tuple<> none;
    codegen::run_loop(s, ratings, codegen::keys(&Rating::user, &Rating::item), std::tie(W, H), none,
                      body);
    if (failing_rank && epoch == 3 && (mode == "escape" || mode == "unwind")) {
      throw std::runtime_error("test failure between epochs");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  session.out() << "finished" << std::endl;
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "none";
  if (mode == "unwind") {
    try {
      return run(argc, argv, mode);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "caught: %s\n", e.what());
      return 1;
    }
  }
  return run(argc, argv, mode);
}
