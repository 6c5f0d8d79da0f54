// --rotor-record-order writes a file; --rotor-replay-order makes a plain `for` over a Dataset
// (Dataset::begin()) follow it, so the serial build reproduces the parallel run bitwise.
#include "LoopTestUtil.h"
#include "rotor/distarray/detail/Collective.h"

#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>

namespace rotor::test {
namespace {

using codegen::Kind;
using codegen::Role;

/// A file name unique to this run (rank 0's pid, shared with every rank).
std::string temp_path(const char* name) {
  std::int64_t pid = static_cast<std::int64_t>(::getpid());
  detail::collective().broadcast(&pid, sizeof pid, 0);
  return std::string(::testing::TempDir()) + "rotor_" + name + "_" + std::to_string(pid) + ".order";
}

TEST(OrderFile, RecordThenReplayThroughDatasetBegin) {
  const std::string path = temp_path("mf");
  const int users = 17, items = 13, k = 4;
  auto records = make_ratings(1200, users, items, 31);
  DistArray<float, 2> W({users, k}), H({items, k});
  W.fill_normal(0.f, 0.3f, 1);
  H.fill_normal(0.f, 0.3f, 2);
  DistArray<float, 2> W0 = W, H0 = H;
  auto body = [&](const Rating& r, auto& W, auto& H) {
    auto w = W.row(r.user);
    auto h = H.row(r.item);
    float e = r.value - w.dot(h);
    w += 0.1f * e * h;
    h += 0.1f * e * w;
  };
  auto s = spec(Kind::rotation, {0, 1},
                {array("W", Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}),
                 array("H", Role::rotating, 1, true, {{1, 0, 0}, {-1, 0, 0}})});
  detail::start_order_recording(path);
  {
    Dataset<Rating> ratings(records);
    std::tuple<> none;
    for (int epoch = 0; epoch < 2; ++epoch) {
      codegen::run_loop(s, ratings, codegen::keys(&Rating::user, &Rating::item), std::tie(W, H),
                        none, body);
    }
  }
  detail::finish_order_recording();
  detail::collective().barrier();

  detail::start_order_replay(path);
  {
    Dataset<Rating> serial(records); // ids are kept while replaying
    for (int epoch = 0; epoch < 2; ++epoch) {
      for (const Rating& r : serial) { // begin() reorders into the recorded order
        body(r, W0, H0);
      }
    }
  }
  detail::stop_order_replay();
  EXPECT_TRUE(bitwise_equal(W, W0));
  EXPECT_TRUE(bitwise_equal(H, H0));
  detail::collective().barrier();
  if (Session::instance().is_root()) {
    std::remove(path.c_str());
  }
}

// A dataset made before the replay started keeps no record ids: the replay says so and what to
// do, rather than that the record counts (which are equal) differ.
TEST(OrderFile, ReplayOnADatasetWithoutIdsSaysWhy) {
  const std::string path = temp_path("noids");
  auto records = make_ratings(200, 7, 5, 3);
  DistArray<float, 2> W({7, 2});
  auto s = spec(Kind::one_d, {0}, {array("W", Role::partitioned, 0, true, {{0, 0, 0}})});
  detail::start_order_recording(path);
  {
    Dataset<Rating> ratings(records);
    std::tuple<> none;
    codegen::run_loop(s, ratings, codegen::keys(&Rating::user, &Rating::item), std::tie(W), none,
                      [](const Rating& r, auto& W) { W(r.user, 0) += r.value; });
  }
  detail::finish_order_recording();
  detail::collective().barrier();
  Dataset<Rating> early(records); // made while no order is recorded or replayed: no ids
  detail::start_order_replay(path);
  std::string what;
  try {
    for (const Rating& r : early) {
      (void)r;
    }
  } catch (const std::runtime_error& e) {
    what = e.what();
  }
  detail::stop_order_replay();
  EXPECT_NE(what.find("create the rotor::Session before the dataset"), std::string::npos) << what;
  EXPECT_EQ(what.find("but this dataset has"), std::string::npos) << what;
  detail::collective().barrier();
  if (Session::instance().is_root()) {
    std::remove(path.c_str());
  }
}

TEST(OrderFile, MalformedReplayFileNamesFileAndLine) {
  const std::string path = temp_path("bad") + "." + std::to_string(Session::instance().rank());
  {
    std::ofstream out(path);
    out << "rotor-order 1\nloop 0 x.cpp:3 3\n0 1\n";
  }
  try {
    detail::start_order_replay(path);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":3"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}

} // namespace
} // namespace rotor::test
