// Rotation plans (MF with k = 2 fields, a 3-field tensor loop, an LDA-shaped loop that writes
// its records): the arrays equal a serial run of the body in the recorded order, bitwise.
#include "LoopTestUtil.h"
#include "StepLoop.h"

namespace rotor::test {
namespace {

using codegen::Kind;
using codegen::Role;

TEST(Rotation, MatrixFactorisationEqualsSerialReplayEveryEpoch) {
  CaptureOrders capture;
  const int users = 37, items = 23, k = 8;
  auto records = make_ratings(3000, users, items, 7);
  Dataset<Rating> ratings(records);
  DistArray<float, 2> W({users, k}), H({items, k});
  W.fill_normal(0.f, 0.1f, 1);
  H.fill_normal(0.f, 0.1f, 2);
  DistArray<float, 2> W0 = W, H0 = H;
  const float lr = 0.005f, reg = 0.01f;
  auto body = [&](const Rating& r, auto& W, auto& H, auto& loss) {
    auto w = W.row(r.user);
    auto h = H.row(r.item);
    float e = r.value - w.dot(h);
    loss += e * e;
    w += lr * (e * h - reg * w);
    h += lr * (e * w - reg * h);
  };
  auto s = spec(Kind::rotation, {0, 1},
                {array("W", Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}),
                 array("H", Role::rotating, 1, true, {{1, 0, 0}, {-1, 0, 0}})});
  for (int epoch = 0; epoch < 3; ++epoch) {
    double loss = 0, loss0 = 0;
    codegen::run_loop(s, ratings, codegen::keys(&Rating::user, &Rating::item), std::tie(W, H),
                      std::tie(loss), body);
    replay(records, last_order(), [&](const Rating& r) { body(r, W0, H0, loss0); });
    EXPECT_TRUE(bitwise_equal(W, W0)) << "epoch " << epoch;
    EXPECT_TRUE(bitwise_equal(H, H0)) << "epoch " << epoch;
    EXPECT_NEAR(loss, loss0, 1e-6 * loss0);
  }
  EXPECT_EQ(ratings.size(), 3000);
}

auto mf_body(float lr, float reg) {
  return [=](const Rating& r, auto& W, auto& H, auto& loss) {
    auto w = W.row(r.user);
    auto h = H.row(r.item);
    float e = r.value - w.dot(h);
    loss += e * e;
    w += lr * (e * h - reg * w);
    h += lr * (e * w - reg * h);
  };
}

codegen::LoopSpec mf_rotation_spec() {
  return spec(Kind::rotation, {0, 1},
              {array("W", Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}),
               array("H", Role::rotating, 1, true, {{1, 0, 0}, {-1, 0, 0}})});
}

// More blocks per field than workers (`blocks`: each worker's block cut into tiles), with a
// fresh order every epoch: still a serial order, equal to its replay bitwise.
void expect_tiled_rotation_equals_replay(const char* blocks_flag, int min_blocks, int count,
                                         int users, int items) {
  CaptureOrders capture;
  BlocksSetting blocks(blocks_flag);
  const int k = 4;
  auto records = make_ratings(count, users, items, 11);
  Dataset<Rating> ratings(records);
  DistArray<float, 2> W({users, k}), H({items, k});
  W.fill_normal(0.f, 0.1f, 1);
  H.fill_normal(0.f, 0.1f, 2);
  DistArray<float, 2> W0 = W, H0 = H;
  const auto body = mf_body(0.005f, 0.01f);
  const auto s = mf_rotation_spec();
  const int workers = detail::session_threads() * detail::collective().size();
  std::vector<std::uint64_t> previous;
  for (int epoch = 0; epoch < 3; ++epoch) {
    double loss = 0, loss0 = 0;
    codegen::run_loop(s, ratings, codegen::keys(&Rating::user, &Rating::item), std::tie(W, H),
                      std::tie(loss), body);
    const std::vector<std::uint64_t> order = last_order();
    replay(records, order, [&](const Rating& r) { body(r, W0, H0, loss0); });
    EXPECT_TRUE(bitwise_equal(W, W0)) << "epoch " << epoch;
    EXPECT_TRUE(bitwise_equal(H, H0)) << "epoch " << epoch;
    EXPECT_NEAR(loss, loss0, 1e-6 * loss0);
    if (workers > 1) {
      ASSERT_EQ(detail::last_blocks().size(), 2u);
      EXPECT_GE(detail::last_blocks()[0], min_blocks);
      EXPECT_GE(detail::last_blocks()[1], min_blocks);
      EXPECT_NE(order, previous) << "epoch " << epoch << " ran in the order of the one before";
    }
    previous = order;
  }
}

TEST(Rotation, MoreBlocksThanWorkersEqualSerialReplay) {
  expect_tiled_rotation_equals_replay("12", 12, 6000, 97, 61);
}

// Enough records per rank (2^17 and more) that the layout groups them by tile on several
// threads, each a contiguous piece of the records.
TEST(Rotation, TilesGroupedInPiecesEqualSerialReplay) {
  expect_tiled_rotation_equals_replay("32", 32, 300000, 2003, 509);
}

// The same seed gives the same orders (two runs of the same loop over the same records, each as
// from the program's start); another seed another order; seed 0 the laid-out order every time.
TEST(Rotation, OrderSeedDecidesTheOrder) {
  CaptureOrders capture;
  BlocksSetting blocks("8");
  const int users = 53, items = 41, k = 4;
  auto records = make_ratings(4000, users, items, 5);
  const auto s = mf_rotation_spec();
  const auto orders = [&](const char* seed) {
    SeedSetting seeded(seed);
    detail::forget_loop_executions();
    Dataset<Rating> ratings(records);
    DistArray<float, 2> W({users, k}), H({items, k});
    W.fill_normal(0.f, 0.1f, 1);
    H.fill_normal(0.f, 0.1f, 2);
    std::vector<std::vector<std::uint64_t>> out;
    for (int epoch = 0; epoch < 2; ++epoch) {
      double loss = 0;
      codegen::run_loop(s, ratings, codegen::keys(&Rating::user, &Rating::item), std::tie(W, H),
                        std::tie(loss), mf_body(0.005f, 0.01f));
      out.push_back(last_order());
    }
    return out;
  };
  const auto first = orders("7");
  EXPECT_EQ(first, orders("7"));
  const auto fixed = orders("0");
  EXPECT_EQ(fixed[0], fixed[1]);
  if (detail::session_threads() * detail::collective().size() > 1) {
    EXPECT_NE(first, orders("8"));
    EXPECT_NE(first[0], first[1]);
  }
}

TEST(Rotation, ThreeFieldsEqualSerialReplay) {
  CaptureOrders capture;
  const int users = 13, items = 11, times = 7, k = 4;
  std::vector<Rating3> records;
  for (int n = 0; n < 1500; ++n) {
    std::uint64_t h = mix(n + 99);
    records.push_back({static_cast<std::int32_t>(h % users),
                       static_cast<std::int32_t>((h >> 8) % items),
                       static_cast<std::int32_t>((h >> 16) % times), static_cast<float>(h % 5)});
  }
  Dataset<Rating3> data(records);
  DistArray<double, 2> U({users, k}), V({items, k}), T({times, k});
  U.fill_uniform(0, 1, 3);
  V.fill_uniform(0, 1, 4);
  T.fill_uniform(0, 1, 5);
  auto U0 = U, V0 = V, T0 = T;
  auto body = [&](const Rating3& r, auto& U, auto& V, auto& T) {
    auto u = U.row(r.user);
    auto v = V.row(r.item);
    auto t = T.row(r.time);
    double e = r.value - (u.array() * v.array() * t.array()).sum();
    u += 0.01 * e * (v.array() * t.array()).matrix();
    v += 0.01 * e * (u.array() * t.array()).matrix();
    t += 0.01 * e * (u.array() * v.array()).matrix();
  };
  auto s = spec(Kind::rotation, {0, 1, 2},
                {array("U", Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}),
                 array("V", Role::rotating, 1, true, {{1, 0, 0}, {-1, 0, 0}}),
                 array("T", Role::rotating, 2, true, {{2, 0, 0}, {-1, 0, 0}})});
  std::tuple<> none;
  codegen::run_loop(s, data, codegen::keys(&Rating3::user, &Rating3::item, &Rating3::time),
                    std::tie(U, V, T), none, body);
  replay(records, last_order(), [&](const Rating3& r) { body(r, U0, V0, T0); });
  EXPECT_TRUE(bitwise_equal(U, U0));
  EXPECT_TRUE(bitwise_equal(V, V0));
  EXPECT_TRUE(bitwise_equal(T, T0));
}

TEST(Rotation, LdaShapedLoopWritesRecordsAndCounts) {
  CaptureOrders capture;
  const int docs = 19, words = 31, topics = 5;
  std::vector<Token> records;
  for (int n = 0; n < 2500; ++n) {
    std::uint64_t h = mix(n + 5);
    records.push_back({static_cast<std::int32_t>(h % docs),
                       static_cast<std::int32_t>((h >> 12) % words),
                       static_cast<std::int32_t>((h >> 30) % topics)});
  }
  DistArray<std::int32_t, 2> dt({docs, topics}), wt({words, topics});
  for (const Token& t : records) {
    ++dt(t.doc, t.topic);
    ++wt(t.word, t.topic);
  }
  auto dt0 = dt, wt0 = wt;
  auto serial_records = records;
  Dataset<Token> tokens(records);
  auto body = [&](Token& t, auto& dt, auto& wt) {
    --dt(t.doc, t.topic);
    --wt(t.word, t.topic);
    int best = 0;
    std::int64_t best_score = -1;
    for (int z = 0; z < topics; ++z) {
      std::int64_t score = (dt(t.doc, z) + 1) * (wt(t.word, z) + 2) +
                           static_cast<std::int64_t>(mix(t.doc * 131 + t.word * 7 + z) % 3);
      if (score > best_score) {
        best_score = score;
        best = z;
      }
    }
    t.topic = best;
    ++dt(t.doc, t.topic);
    ++wt(t.word, t.topic);
  };
  auto s = spec(Kind::rotation, {0, 1},
                {array("dt", Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}),
                 array("wt", Role::rotating, 1, true, {{1, 0, 0}, {-1, 0, 0}})});
  s.writes_records = true;
  std::tuple<> none;
  for (int iteration = 0; iteration < 2; ++iteration) {
    codegen::run_loop(s, tokens, codegen::keys(&Token::doc, &Token::word), std::tie(dt, wt), none,
                      body);
    replay(serial_records, last_order(), [&](Token& t) { body(t, dt0, wt0); });
    EXPECT_TRUE(bitwise_equal(dt, dt0));
    EXPECT_TRUE(bitwise_equal(wt, wt0));
  }
  // records written by the body are stored in the dataset (this rank's share)
  auto& ids = detail::DatasetInternals::ids(tokens);
  ASSERT_EQ(ids.size(), tokens.local_size());
  for (std::size_t i = 0; i < tokens.local_size(); ++i) {
    EXPECT_EQ(tokens[i].topic, serial_records[ids[i]].topic) << "record " << ids[i];
  }
}

} // namespace
} // namespace rotor::test

namespace rotor::test {
namespace {

using codegen::Kind;
using codegen::Role;

/// Each rank holds a slice of the records (as a loader gives them); ids are global positions.
Dataset<Rating> distributed_share(const std::vector<Rating>& all) {
  const int r = Session::instance().rank(), n = Session::instance().ranks();
  const std::size_t first = all.size() * static_cast<std::size_t>(r) / static_cast<std::size_t>(n);
  const std::size_t last =
      all.size() * static_cast<std::size_t>(r + 1) / static_cast<std::size_t>(n);
  return Dataset<Rating>::distributed(std::vector<Rating>(all.begin() + first, all.begin() + last),
                                      first);
}

TEST(Rotation, DistributedDatasetMovesRecordsAndEqualsReplay) {
  CaptureOrders capture;
  const int users = 29, items = 31, k = 4;
  auto records = make_ratings(2500, users, items, 13);
  Dataset<Rating> ratings = distributed_share(records);
  EXPECT_EQ(ratings.size(), 2500);
  DistArray<double, 2> W({users, k}), H({items, k});
  W.fill_normal(0.0, 0.1, 3);
  H.fill_normal(0.0, 0.1, 4);
  auto W0 = W, H0 = H;
  auto body = [&](const Rating& r, auto& W, auto& H) {
    auto w = W.row(r.user);
    auto h = H.row(r.item);
    double e = r.value - w.dot(h);
    w += 0.01 * e * h;
    h += 0.01 * e * w;
  };
  auto s = spec(Kind::rotation, {0, 1},
                {array("W", Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}),
                 array("H", Role::rotating, 1, true, {{1, 0, 0}, {-1, 0, 0}})});
  std::tuple<> none;
  for (int epoch = 0; epoch < 2; ++epoch) {
    codegen::run_loop(s, ratings, codegen::keys(&Rating::user, &Rating::item), std::tie(W, H), none,
                      body);
    replay(records, last_order(), [&](const Rating& r) { body(r, W0, H0); });
    EXPECT_TRUE(bitwise_equal(W, W0));
    EXPECT_TRUE(bitwise_equal(H, H0));
  }
  EXPECT_EQ(ratings.size(), 2500);
  EXPECT_EQ(ratings.distribution(), Distribution::distributed);
}

TEST(Serial, DistributedDatasetRunsInGlobalOrderOnEveryRank) {
  auto records = make_ratings(700, 10, 10, 8);
  Dataset<Rating> ratings = distributed_share(records);
  DistArray<double, 1> acc({10}), acc0({10});
  auto body = [](const Rating& r, auto& acc) { acc[r.user] = acc[r.user] * 0.75 + r.value; };
  auto s = spec(Kind::serial, {}, {array("acc", Role::partitioned, 0, true, {{0, 0, 0}})});
  std::tuple<> none;
  codegen::run_loop(s, ratings, codegen::keys(&Rating::user), std::tie(acc), none, body);
  for (const Rating& r : records) {
    body(r, acc0);
  }
  EXPECT_TRUE(bitwise_equal(acc, acc0));
  EXPECT_EQ(ratings.size(), 700);
}

} // namespace
} // namespace rotor::test
