// Reductions: per-worker partials combined in a fixed order, so repeated runs give identical
// results; integer sums and Accumulator<Max/Min> equal the serial values in every configuration.
#include "LoopTestUtil.h"

#include <cmath>

namespace rotor::test {
namespace {

using codegen::Kind;
using codegen::Role;

TEST(Reduction, DeterministicAcrossRepeatedRuns) {
  auto records = make_ratings(5000, 60, 40, 17);
  auto s = spec(Kind::rotation, {0, 1},
                {array("W", Role::partitioned, 0, false, {{0, 0, 0}}),
                 array("H", Role::rotating, 1, false, {{1, 0, 0}})});
  DistArray<float, 1> W({60}), H({40});
  W.fill_normal(0.f, 1.f, 1);
  H.fill_normal(0.f, 1.f, 2);
  double first = 0;
  for (int run = 0; run < 3; ++run) {
    Dataset<Rating> ratings(records); // a fresh layout every run
    detail::forget_loop_executions(); // and the order of the first (--rotor-order-seed)
    double loss = 0.25;
    float f = 0;
    codegen::run_loop(s, ratings, codegen::keys(&Rating::user, &Rating::item), std::tie(W, H),
                      std::tie(loss, f),
                      [](const Rating& r, auto& W, auto& H, auto& loss, auto& f) {
                        double e = r.value - W[r.user] * H[r.item];
                        loss += e * e;
                        f -= 1.0f;
                      });
    if (run == 0) {
      first = loss;
    }
    EXPECT_EQ(std::memcmp(&loss, &first, sizeof loss), 0) << "run " << run;
    EXPECT_EQ(f, -5000.0f);
  }
  double serial = 0.25;
  for (const Rating& r : records) {
    double e = r.value - W[r.user] * H[r.item];
    serial += e * e;
  }
  EXPECT_NEAR(first, serial, 1e-9 * serial);
}

TEST(Reduction, IntegerSumsAndAccumulatorsEqualSerial) {
  auto records = make_ratings(3000, 30, 30, 5);
  Dataset<Rating> ratings(records);
  std::int64_t sum = 7;
  Accumulator<float, Max> best;
  Accumulator<std::int32_t, Min> smallest_user(1000);
  Accumulator<double> total;
  auto s = spec(Kind::one_d, {1}, {});
  std::tuple<> no_arrays;
  codegen::run_loop(s, ratings, codegen::keys(&Rating::user, &Rating::item), no_arrays,
                    std::tie(sum, best, smallest_user, total),
                    [](const Rating& r, auto& sum, auto& best, auto& smallest, auto& total) {
                      sum += r.user * 3 + r.item;
                      best += r.value * 2.0f;
                      smallest += r.user;
                      total += 0.5;
                    });
  std::int64_t serial = 7;
  float serial_best = -1e30f;
  std::int32_t serial_min = 1000;
  for (const Rating& r : records) {
    serial += r.user * 3 + r.item;
    serial_best = std::max(serial_best, r.value * 2.0f);
    serial_min = std::min(serial_min, r.user);
  }
  EXPECT_EQ(sum, serial);
  EXPECT_EQ(best.value(), serial_best);
  EXPECT_EQ(smallest_user.value(), serial_min);
  EXPECT_EQ(total.value(), 1500.0);
}

// The record loop keeps the partials in locals and writes them back when it ends: also when
// the body stops the loop (`break`) and when a mutable body keeps state across records.
TEST(Reduction, PartialsKeptWhenTheBodyStops) {
  auto records = make_ratings(800, 20, 10, 9);
  Dataset<Rating> ratings(records);
  auto s = spec(Kind::serial, {}, {});
  s.reason = "test";
  std::tuple<> no_arrays;
  std::int64_t count = 3;
  double sum = 0.5;
  std::int64_t calls = 0;
  codegen::run_loop(
      s, ratings, codegen::keys(&Rating::user, &Rating::item), no_arrays, std::tie(count, sum),
      [seen = std::int64_t{0}, &calls](const Rating& r, auto& count, auto& sum) mutable {
        calls = ++seen; // a mutable body: the loop calls it, not a copy
        if (r.value >= 5.0f) {
          return false; // stops at the first 5-star rating, like `break`
        }
        ++count;
        sum += r.value;
        return true;
      });
  std::int64_t serial_count = 3;
  double serial_sum = 0.5;
  std::int64_t serial_calls = 0;
  for (const Rating& r : records) {
    ++serial_calls;
    if (r.value >= 5.0f) {
      break;
    }
    ++serial_count;
    serial_sum += r.value;
  }
  ASSERT_LT(serial_calls, static_cast<std::int64_t>(records.size())); // the body did stop
  EXPECT_EQ(count, serial_count);
  EXPECT_EQ(sum, serial_sum);
  EXPECT_EQ(calls, serial_calls);
}

} // namespace
} // namespace rotor::test
