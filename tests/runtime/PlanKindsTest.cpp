// The other plan kinds: serial (with `break`), independent, one_d, wavefront over an index space
// and over a dataset, unimodular (skewed wavefront), data_parallel with buffered arrays, and the
// alias fallback.
#include "LoopTestUtil.h"

#include <algorithm>

namespace rotor::test {
namespace {

using codegen::Kind;
using codegen::Role;

TEST(Serial, EqualsPlainLoopAndStopsAtBreak) {
  auto records = make_ratings(500, 20, 10, 3);
  Dataset<Rating> ratings(records);
  DistArray<double, 1> acc({20});
  DistArray<double, 1> acc0({20});
  auto body = [&](const Rating& r, auto& acc) {
    acc[r.user] = acc[r.user] * 0.5 + r.value;
    return r.value < 5.0f; // stops at the first 5-star rating, like `break`
  };
  auto s = spec(Kind::serial, {}, {array("acc", Role::partitioned, 0, true, {{0, 0, 0}})});
  s.reason = "test";
  std::tuple<> none;
  codegen::run_loop(s, ratings, codegen::keys(&Rating::user, &Rating::item), std::tie(acc), none,
                    body);
  for (const Rating& r : records) {
    if (!body(r, acc0)) {
      break;
    }
  }
  EXPECT_TRUE(bitwise_equal(acc, acc0));
}

TEST(Independent, LocalWritesEqualSerial) {
  CaptureOrders capture;
  std::vector<Rating> records;
  for (int n = 0; n < 900; ++n) {
    records.push_back({n, static_cast<std::int32_t>(mix(n) % 50), static_cast<float>(n % 7)});
  }
  Dataset<Rating> data(records);
  DistArray<float, 1> out({900}), out0({900});
  DistArray<float, 1> weights({50}), weights0({50});
  weights.fill_uniform(0.f, 1.f, 9);
  weights0 = weights;
  auto body = [&](const Rating& r, auto& out, auto& weights) {
    out[r.user] = r.value * weights[r.item] + 1.0f;
  };
  auto s = spec(Kind::independent, {},
                {array("out", Role::local, 0, true, {{0, 0, 0}}),
                 array("weights", Role::replicated, -1, false, {{-1, 0, 0}})});
  std::tuple<> none;
  codegen::run_loop(s, data, codegen::keys(&Rating::user, &Rating::item), std::tie(out, weights),
                    none, body);
  replay(records, last_order(), [&](const Rating& r) { body(r, out0, weights0); });
  EXPECT_TRUE(bitwise_equal(out, out0));
}

TEST(OneD, PartitionedRowsEqualSerialReplay) {
  CaptureOrders capture;
  auto records = make_ratings(2000, 40, 30, 11);
  Dataset<Rating> ratings(records);
  DistArray<float, 2> W({40, 4}), W0({40, 4});
  DistArray<float, 2> H({30, 4});
  H.fill_normal(0.f, 1.f, 4);
  auto H0 = H;
  auto body = [&](const Rating& r, auto& W, auto& H, auto& count) {
    W.row(r.user) += r.value * H.row(r.item);
    count += 1;
  };
  auto s = spec(Kind::one_d, {0},
                {array("W", Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}),
                 array("H", Role::replicated, -1, false, {{-1, 0, 0}, {-1, 0, 0}})});
  std::int64_t count = 0, count0 = 0;
  codegen::run_loop(s, ratings, codegen::keys(&Rating::user, &Rating::item), std::tie(W, H),
                    std::tie(count), body);
  replay(records, last_order(), [&](const Rating& r) { body(r, W0, H0, count0); });
  EXPECT_TRUE(bitwise_equal(W, W0));
  EXPECT_EQ(count, 2000);
  EXPECT_EQ(count, count0);
}

/// A(i, j) = f(A(i-1, j), A(i, j-1)): needs ascending (i, j) order up to independent swaps.
template <class Array> void stencil(std::int64_t i, std::int64_t j, Array& A) {
  float up = i > 0 ? A(i - 1, j) : 1.0f;
  float left = j > 0 ? A(i, j - 1) : 0.5f;
  A(i, j) = 0.5f * up + 0.25f * left + 0.125f * A(i, j) + 0.01f;
}

TEST(Wavefront, IndexSpaceStencilEqualsSerialOrder) {
  const std::int64_t rows = 37, cols = 53;
  DistArray<float, 2> A({rows, cols}), A0({rows, cols});
  A.fill_uniform(0.f, 1.f, 8);
  A0 = A;
  IndexSpace<2> grid({rows, cols});
  auto s = spec(Kind::wavefront, {0, 1},
                {array("A", Role::partitioned, 0, true, {{0, -1, 0}, {1, -1, 0}})}, true);
  std::tuple<> none;
  codegen::run_loop(s, grid, codegen::index_keys<2>(), std::tie(A), none,
                    [&](const Index<2>& p, auto& A) { stencil(p[0], p[1], A); });
  for (auto [i, j] : grid) {
    stencil(i, j, A0);
  }
  EXPECT_TRUE(bitwise_equal(A, A0));
}

TEST(Wavefront, OrderedDatasetEqualsSortedSerialAndReplay) {
  CaptureOrders capture;
  const int rows = 29, cols = 31;
  std::vector<Cell> records;
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) {
      if (mix(i * 100 + j) % 4 != 0) { // sparse
        records.push_back({i, j});
      }
    }
  }
  std::vector<Cell> shuffled = records;
  for (std::size_t k = shuffled.size(); k > 1; --k) {
    std::swap(shuffled[k - 1], shuffled[mix(k) % k]);
  }
  Dataset<Cell> cells(shuffled);
  DistArray<float, 2> A({rows, cols}), A0({rows, cols}), A1({rows, cols});
  A.fill_uniform(0.f, 1.f, 2);
  A0 = A;
  A1 = A;
  auto body = [&](const Cell& c, auto& A) { stencil(c.i, c.j, A); };
  auto s = spec(Kind::wavefront, {0, 1},
                {array("A", Role::partitioned, 0, true, {{0, -1, 0}, {1, -1, 0}})}, true);
  std::tuple<> none;
  codegen::run_loop(s, cells, codegen::keys(&Cell::i, &Cell::j), std::tie(A), none, body);
  replay(shuffled, last_order(), [&](const Cell& c) { body(c, A0); });
  EXPECT_TRUE(bitwise_equal(A, A0));
  for (const Cell& c : records) { // ascending key order
    body(c, A1);
  }
  EXPECT_TRUE(bitwise_equal(A, A1));
}

TEST(Unimodular, SkewedStencilEqualsSerialOrder) {
  // A(i, j) depends on A(i-1, j) and A(i-1, j+1): distances (1, 0) and (1, -1); the skew
  // (i, i + j) makes them (1, 1) and (1, 0), a wavefront.
  const std::int64_t rows = 23, cols = 19;
  DistArray<double, 2> A({rows, cols}), A0({rows, cols});
  A.fill_uniform(0.0, 1.0, 5);
  A0 = A;
  auto body = [](std::int64_t i, std::int64_t j, auto& A) {
    if (i == 0) {
      return;
    }
    double right = j + 1 < A.extent(1) ? A(i - 1, j + 1) : 0.0;
    A(i, j) = 0.5 * A(i - 1, j) + 0.5 * right + 0.001 * A(i, j);
  };
  IndexSpace<2> grid({rows, cols});
  auto s = spec(Kind::unimodular, {0, 1},
                {array("A", Role::partitioned, 0, true, {{-1, 0, 0}, {-1, 0, 0}})}, true);
  s.matrix = {{1, 0}, {1, 1}};
  s.base = Kind::wavefront;
  std::tuple<> none;
  codegen::run_loop(s, grid, codegen::index_keys<2>(), std::tie(A), none,
                    [&](const Index<2>& p, auto& A) { body(p[0], p[1], A); });
  for (auto [i, j] : grid) {
    body(i, j, A0);
  }
  EXPECT_TRUE(bitwise_equal(A, A0));
}

TEST(Unimodular, SkewedRecordsEqualReplayAcrossRanks) {
  // A(i, j) reads A(i - 1, j + 1): distance (1, -1), unordered. T = [[1, 1], [0, 1]] makes the
  // first skewed key i + j equal on every conflict, so one_d over i + j is sound; at np > 1 the
  // records move to the rank of their i + j range and A is synced by difference.
  CaptureOrders capture;
  const int rows = 37, cols = 41;
  std::vector<Cell> records;
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) {
      if (mix(i * 131 + j) % 5 != 0) {
        records.push_back({i, j});
      }
    }
  }
  for (std::size_t k = records.size(); k > 1; --k) {
    std::swap(records[k - 1], records[mix(k + 7) % k]);
  }
  Dataset<Cell> cells(records);
  DistArray<double, 2> A({rows, cols}), A0({rows, cols});
  A.fill_uniform(0.0, 1.0, 9);
  A0 = A;
  auto body = [](const Cell& c, auto& A) {
    const double up_right = c.i > 0 && c.j + 1 < A.extent(1) ? A(c.i - 1, c.j + 1) : 1.0;
    A(c.i, c.j) = 0.5 * up_right + 0.25 * A(c.i, c.j) + 0.125;
  };
  auto s = spec(Kind::unimodular, {0, 1},
                {array("A", Role::partitioned, 0, true, {{0, -1, 0}, {1, 0, 1}})}, false);
  s.matrix = {{1, 1}, {0, 1}};
  s.base = Kind::one_d;
  std::tuple<> none;
  codegen::run_loop(s, cells, codegen::keys(&Cell::i, &Cell::j), std::tie(A), none, body);
  replay(records, last_order(), [&](const Cell& c) { body(c, A0); });
  EXPECT_TRUE(bitwise_equal(A, A0));
}

TEST(Unimodular, SkewedOrderedRecordsEqualKeyOrderAcrossRanks) {
  // The skewed stencil of SkewedStencilEqualsSerialOrder over records: ordered, base wavefront on
  // the skewed keys (i, i + j); at np > 1 the cells' ranks sync A after every step.
  const int rows = 23, cols = 19;
  std::vector<Cell> records;
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) {
      records.push_back({i, j});
    }
  }
  std::vector<Cell> shuffled = records;
  for (std::size_t k = shuffled.size(); k > 1; --k) {
    std::swap(shuffled[k - 1], shuffled[mix(k + 3) % k]);
  }
  Dataset<Cell> cells(shuffled);
  DistArray<double, 2> A({rows, cols}), A0({rows, cols});
  A.fill_uniform(0.0, 1.0, 5);
  A0 = A;
  auto body = [](const Cell& c, auto& A) {
    if (c.i == 0) {
      return;
    }
    const double right = c.j + 1 < A.extent(1) ? A(c.i - 1, c.j + 1) : 0.0;
    A(c.i, c.j) = 0.5 * A(c.i - 1, c.j) + 0.5 * right + 0.001 * A(c.i, c.j);
  };
  auto s = spec(Kind::unimodular, {0, 1},
                {array("A", Role::partitioned, 0, true, {{0, -1, 0}, {1, 0, 1}})}, true);
  s.matrix = {{1, 0}, {1, 1}};
  s.base = Kind::wavefront;
  std::tuple<> none;
  codegen::run_loop(s, cells, codegen::keys(&Cell::i, &Cell::j), std::tie(A), none, body);
  for (const Cell& c : records) { // ascending key order
    body(c, A0);
  }
  EXPECT_TRUE(bitwise_equal(A, A0));
}

TEST(DataParallel, BufferedCountsMergeExactly) {
  auto records = make_ratings(4000, 50, 20, 21);
  Dataset<Rating> ratings(records);
  DistArray<std::int64_t, 1> hist({5}), hist0({5});
  DistArray<double, 1> sums({20}), sums0({20});
  hist[0] = 100; // merged changes add to what was there
  hist0[0] = 100;
  auto body = [&](const Rating& r, auto& hist, auto& sums) {
    hist[static_cast<std::int64_t>(r.value) - 1] += 1;
    sums[r.item] += 0.5 * r.value; // exact in binary: any order gives the same sum
  };
  auto s = spec(Kind::data_parallel, {},
                {array("hist", Role::buffered, -1, true, {{-1, 0, 0}}),
                 array("sums", Role::buffered, -1, true, {{-1, 0, 0}})});
  std::tuple<> none;
  codegen::run_loop(s, ratings, codegen::keys(&Rating::user, &Rating::item), std::tie(hist, sums),
                    none, body);
  for (const Rating& r : records) {
    body(r, hist0, sums0);
  }
  EXPECT_TRUE(bitwise_equal(hist, hist0));
  EXPECT_TRUE(bitwise_equal(sums, sums0));
}

TEST(Alias, SameArrayBoundTwiceRunsSerially) {
  auto records = make_ratings(300, 10, 10, 2);
  Dataset<Rating> ratings(records);
  DistArray<float, 1> A({10}), A0({10});
  auto body = [&](const Rating& r, auto& X, auto& Y) { X[r.user] = Y[r.item] * 0.5f + r.value; };
  auto s = spec(Kind::rotation, {0, 1},
                {array("X", Role::partitioned, 0, true, {{0, 0, 0}}),
                 array("Y", Role::rotating, 1, false, {{1, 0, 0}})});
  std::tuple<> none;
  codegen::run_loop(s, ratings, codegen::keys(&Rating::user, &Rating::item), std::tie(A, A), none,
                    body);
  for (const Rating& r : records) {
    body(r, A0, A0);
  }
  EXPECT_TRUE(bitwise_equal(A, A0));
}

TEST(Spec, WrongArrayCountIsAnError) {
  Dataset<Rating> ratings(make_ratings(10, 5, 5, 1));
  DistArray<float, 1> A({5});
  auto s = spec(Kind::one_d, {0}, {});
  std::tuple<> none;
  EXPECT_THROW(codegen::run_loop(s, ratings, codegen::keys(&Rating::user), std::tie(A), none,
                                 [](const Rating&, auto&) {}),
               std::invalid_argument);
}

} // namespace
} // namespace rotor::test

namespace rotor::test {
namespace {

TEST(Layout, ChangedRecordsBetweenLoopsAreLaidOutAgain) {
  CaptureOrders capture;
  auto records = make_ratings(1500, 30, 20, 41);
  Dataset<Rating> ratings(records);
  DistArray<float, 1> W({30}), W0({30});
  auto body = [](const Rating& r, auto& W) { W[r.user] = W[r.user] * 0.5f + r.value; };
  auto s = spec(codegen::Kind::one_d, {0},
                {array("W", codegen::Role::partitioned, 0, true, {{0, 0, 0}})});
  std::tuple<> none;
  for (int round = 0; round < 3; ++round) {
    codegen::run_loop(s, ratings, codegen::keys(&Rating::user), std::tie(W), none, body);
    replay(records, last_order(), [&](const Rating& r) { body(r, W0); });
    ASSERT_TRUE(bitwise_equal(W, W0)) << "round " << round;
    // change this rank's records the way user code between loops may (through begin() and
    // operator[]): reverse them and move every record to another user (the serial copy follows
    // by id)
    auto& ids = detail::DatasetInternals::ids(ratings);
    std::reverse(ratings.begin(), ratings.end());
    std::reverse(ids.begin(), ids.end());
    for (std::size_t i = 0; i < ratings.local_size(); ++i) {
      ratings[i].user = (ratings[i].user + 7) % 30;
    }
    for (Rating& r : records) {
      r.user = (r.user + 7) % 30;
    }
  }
}

} // namespace
} // namespace rotor::test
