// --rotor-validate (docs/user/running.md, "Validating a port"). ctest runs this binary with
// --rotor-validate at threads 2 and at np 2: sound loops over datasets and index spaces pass (and
// keep their results), the deliberately unsound loops (ValidateLoops.h, an index-space one) are
// stopped with a message naming the loop and the element. At np > 1 the stop aborts the job, so
// runtime_validate_unsound.np2 checks that case with ValidateProgram.cpp.
#include "TestArgv.h"
#include "ValidateLoops.h"

#include <cstdlib>
#include <regex>
#include <stdexcept>
#include <string>

namespace rotor::test {
namespace {

using codegen::Kind;
using codegen::Role;

TEST(ValidateSettings, FlagAndEnvironment) {
  {
    TestArgv a({"p", "--rotor-validate", "x"});
    EXPECT_TRUE(detail::parse_settings(a.argc, a.ptrs.data(), false).validate);
    EXPECT_EQ(a.argc, 2);
  }
  {
    TestArgv a({"p", "--rotor-validate=0"});
    EXPECT_FALSE(detail::parse_settings(a.argc, a.ptrs.data(), false).validate);
  }
  {
    TestArgv a({"p", "--rotor-validate=maybe"});
    EXPECT_THROW(detail::parse_settings(a.argc, a.ptrs.data(), false), SettingsError);
  }
  {
    TestArgv a({"p", "--rotor-nope"});
    try {
      detail::parse_settings(a.argc, a.ptrs.data(), false);
      ADD_FAILURE() << "no error for an unknown flag";
    } catch (const SettingsError& e) {
      EXPECT_NE(std::string(e.what()).find("--rotor-validate"), std::string::npos) << e.what();
    }
  }
  const char* before = std::getenv("ROTOR_VALIDATE");
  const std::string saved = before ? before : "";
  setenv("ROTOR_VALIDATE", "1", 1);
  TestArgv on({"p"});
  EXPECT_TRUE(detail::parse_settings(on.argc, on.ptrs.data(), true).validate);
  TestArgv off({"p", "--rotor-validate=false"});
  EXPECT_FALSE(detail::parse_settings(off.argc, off.ptrs.data(), true).validate); // flag wins
  if (before) {
    setenv("ROTOR_VALIDATE", saved.c_str(), 1);
  } else {
    unsetenv("ROTOR_VALIDATE");
  }
}

TEST(Validate, IsOnInThisRun) {
  ASSERT_TRUE(Session::instance().settings().validate)
      << "ctest runs runtime_validate_test with --rotor-validate";
}

/// The MF rotation (W partitioned by user, H rotating by item) with a loss reduction: validated
/// every epoch, and still equal to a serial replay of its recorded order.
TEST(Validate, RotationPasses) {
  CaptureOrders capture;
  const int users = 37, items = 23, k = 8;
  auto records = make_ratings(3000, users, items, 7);
  Dataset<Rating> ratings(records);
  DistArray<float, 2> W({users, k}), H({items, k});
  W.fill_normal(0.f, 0.1f, 1);
  H.fill_normal(0.f, 0.1f, 2);
  DistArray<float, 2> W0 = W, H0 = H;
  auto body = [&](const Rating& r, auto& W, auto& H, auto& loss, auto& count) {
    auto w = W.row(r.user);
    auto h = H.row(r.item);
    const float e = r.value - w.dot(h);
    loss += e * e;
    count += 1;
    w += 0.005f * (e * h - 0.01f * w);
    h += 0.005f * (e * w - 0.01f * h);
  };
  auto s = spec(Kind::rotation, {0, 1},
                {array("W", Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}),
                 array("H", Role::rotating, 1, true, {{1, 0, 0}, {-1, 0, 0}})});
  s.reductions = {"loss", "count"};
  const std::int64_t validated = detail::validated_executions();
  for (int epoch = 0; epoch < 3; ++epoch) {
    double loss = 0, loss0 = 0;
    std::int64_t count = 0, count0 = 0;
    ASSERT_NO_THROW(codegen::run_loop(s, ratings, codegen::keys(&Rating::user, &Rating::item),
                                      std::tie(W, H), std::tie(loss, count), body));
    replay(records, last_order(), [&](const Rating& r) { body(r, W0, H0, loss0, count0); });
    EXPECT_TRUE(bitwise_equal(W, W0)) << "epoch " << epoch;
    EXPECT_TRUE(bitwise_equal(H, H0)) << "epoch " << epoch;
    EXPECT_EQ(count, 3000);
  }
  EXPECT_EQ(detail::validated_executions(), validated + 3);
}

/// An LDA-shaped rotation that writes its records, over a dataset distributed across ranks.
TEST(Validate, RecordWritingRotationPasses) {
  const int docs = 19, words = 31, topics = 5;
  std::vector<Token> all;
  for (int n = 0; n < 2000; ++n) {
    std::uint64_t h = mix(n + 5);
    all.push_back({static_cast<std::int32_t>(h % docs),
                   static_cast<std::int32_t>((h >> 12) % words),
                   static_cast<std::int32_t>((h >> 30) % topics)});
  }
  DistArray<std::int32_t, 2> dt({docs, topics}), wt({words, topics});
  for (const Token& t : all) {
    ++dt(t.doc, t.topic);
    ++wt(t.word, t.topic);
  }
  Dataset<Token> tokens = share_of(all);
  auto body = [&](Token& t, auto& dt, auto& wt) {
    --dt(t.doc, t.topic);
    --wt(t.word, t.topic);
    int best = 0;
    std::int64_t best_score = -1;
    for (int z = 0; z < topics; ++z) {
      const std::int64_t score = (dt(t.doc, z) + 1) * (wt(t.word, z) + 2) +
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
  const std::int64_t validated = detail::validated_executions();
  for (int iteration = 0; iteration < 2; ++iteration) {
    ASSERT_NO_THROW(codegen::run_loop(s, tokens, codegen::keys(&Token::doc, &Token::word),
                                      std::tie(dt, wt), none, body));
  }
  EXPECT_EQ(detail::validated_executions(), validated + 2);
}

void stencil(std::int64_t i, std::int64_t j, DistArray<float, 2>& A) {
  const float up = i > 0 ? A(i - 1, j) : 0.f;
  const float left = j > 0 ? A(i, j - 1) : 0.f;
  A(i, j) = 0.5f * up + 0.25f * left + 0.125f * A(i, j) + 0.01f;
}

/// Index spaces: a wavefront stencil (boxes per cell) and a skewed stencil (points in a skewed
/// order) are validated and pass.
TEST(Validate, IndexSpaceStencilsPass) {
  const std::int64_t rows = 37, cols = 53;
  DistArray<float, 2> A({rows, cols});
  A.fill_uniform(0.f, 1.f, 8);
  IndexSpace<2> grid({rows, cols});
  auto wave = spec(Kind::wavefront, {0, 1},
                   {array("A", Role::partitioned, 0, true, {{0, -1, 0}, {1, -1, 0}})}, true);
  std::tuple<> none;
  const std::int64_t validated = detail::validated_executions();
  ASSERT_NO_THROW(codegen::run_loop(wave, grid, codegen::index_keys<2>(), std::tie(A), none,
                                    [&](const Index<2>& p, auto& A) { stencil(p[0], p[1], A); }));
  DistArray<double, 2> B({23, 19});
  B.fill_uniform(0.0, 1.0, 5);
  auto skewed = spec(Kind::unimodular, {0, 1},
                     {array("B", Role::partitioned, 0, true, {{-1, 0, 0}, {-1, 0, 0}})}, true);
  skewed.matrix = {{1, 0}, {1, 1}};
  skewed.base = Kind::wavefront;
  IndexSpace<2> skewed_grid({23, 19});
  ASSERT_NO_THROW(codegen::run_loop(skewed, skewed_grid, codegen::index_keys<2>(), std::tie(B),
                                    none, [&](const Index<2>& p, auto& B) {
                                      const std::int64_t i = p[0], j = p[1];
                                      if (i > 0) {
                                        const double right =
                                            j + 1 < B.extent(1) ? B(i - 1, j + 1) : 0.0;
                                        B(i, j) = 0.5 * B(i - 1, j) + 0.5 * right + 0.001 * B(i, j);
                                      }
                                    }));
  EXPECT_EQ(detail::validated_executions(), validated + 2);
}

/// Serial plans (already a serial run) and data_parallel plans (no serial order promised) are not
/// validated.
TEST(Validate, SerialAndDataParallelPlansAreSkipped) {
  Dataset<Tagged> data(make_tagged(500, 5, 7, 11));
  double sum = 0;
  auto body = [](const Tagged& r, auto& sum) { sum += r.value; };
  const std::int64_t validated = detail::validated_executions();
  for (Kind kind : {Kind::serial, Kind::data_parallel}) {
    auto s = spec(kind, {}, {});
    s.reductions = {"sum"};
    std::tuple<> none;
    ASSERT_NO_THROW(codegen::run_loop(s, data, tagged_keys(), none, std::tie(sum), body));
  }
  EXPECT_EQ(detail::validated_executions(), validated);
}

/// An index-space loop claiming `independent` while every point rewrites A(0) is stopped too.
TEST(Validate, UnsoundIndexSpaceLoopIsCaught) {
#ifdef ROTOR_CHECK_ACCESS
  GTEST_SKIP() << "checked accesses stop this loop first (runtime_access_check_test)";
#endif
  if (Session::instance().ranks() > 1 || Session::instance().threads() < 2) {
    GTEST_SKIP() << "needs one rank with two threads (np > 1 aborts the job)";
  }
  DistArray<double, 1> A({64});
  A(0) = 1;
  auto s = spec(Kind::independent, {0}, {array("A", Role::partitioned, 0, true, {{0, 0, 0}})});
  s.line = 7;
  std::atomic<int> arrived{0};
  auto body = [&](const Index<1>& p, auto& A) {
    const double a = A(0);
    if (arrived.fetch_add(1) < 2) { // the first point of each worker waits for the other
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      while (arrived.load() < 2 && std::chrono::steady_clock::now() < until) {
        std::this_thread::yield();
      }
    }
    A(0) = a * 3 + static_cast<double>(p[0] % 5);
  };
  std::string message;
  std::tuple<> none;
  IndexSpace<1> line({64});
  try {
    codegen::run_loop(s, line, codegen::index_keys<1>(), std::tie(A), none, body);
  } catch (const std::runtime_error& e) {
    message = e.what();
  }
  ASSERT_GE(arrived.load(), 2) << "the two workers never overlapped (machine overloaded?)";
  EXPECT_NE(message.find("rotor: --rotor-validate: loop test.cpp:7 (independent): A(0) = "),
            std::string::npos)
      << "message: '" << message << "'";
}

/// The unsound loop is stopped, naming the loop, the array and the element. In one process the
/// stop is an exception; with several ranks it aborts the job (runtime_validate_unsound.np2).
TEST(Validate, UnsoundLoopIsCaught) {
  if (Session::instance().ranks() > 1) {
    GTEST_SKIP() << "aborts the job at np > 1: runtime_validate_unsound.np2 checks it";
  }
  if (Session::instance().threads() < 2) {
    GTEST_SKIP() << "one worker runs a serial order: nothing to catch";
  }
  Dataset<Tagged> data(make_tagged(20, 5, 7, 3));
  DistArray<double, 2> W({5, 2});
  W(0, 0) = 1;
  std::atomic<int> arrived{0};
  std::string message;
  try {
    run_unsound_loop(data, W, arrived);
  } catch (const std::runtime_error& e) {
    message = e.what();
  }
  ASSERT_GE(arrived.load(), 2) << "the two workers never overlapped (machine overloaded?)";
  const std::regex expected(
      "rotor: --rotor-validate: loop unsound\\.cpp:41 \\(independent\\): W\\(0, 0\\) = "
      "[-0-9.e+]+ in the parallel run, [-0-9.e+]+ in the serial replay of its order");
  EXPECT_TRUE(std::regex_match(message, expected)) << "message: '" << message << "'";
}

} // namespace
} // namespace rotor::test
