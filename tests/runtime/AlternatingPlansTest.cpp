// Loops with different plans over one dataset: an independent loop runs over the records as the
// rotation laid them out (no relayout, nothing moves), and a serial loop still sees the
// dataset's own order (with `break` stopping at the first false in that order).
#include "LoopTestUtil.h"

#include <algorithm>

namespace rotor::test {
namespace {

using codegen::Kind;
using codegen::Role;

std::vector<Tagged> local_records(Dataset<Tagged>& d) {
  return std::vector<Tagged>(d.begin(), d.end());
}

bool same_records(const std::vector<Tagged>& a, const std::vector<Tagged>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(Tagged)) == 0);
}

TEST(AlternatingPlans, IndependentLoopRunsOverTheRotationLayout) {
  CaptureOrders capture;
  SeedSetting laid_out("0"); // each epoch in the laid-out order: equal orders show the layout kept
  const int users = 23, items = 37, k = 3, n = 3000;
  const std::vector<Tagged> records = make_tagged(n, users, items, 21);
  Dataset<Tagged> data = share_of(records);
  DistArray<double, 2> W({users, k}), H({items, k});
  W.fill_normal(0.0, 0.1, 5);
  H.fill_normal(0.0, 0.1, 6);
  auto W0 = W, H0 = H;
  const auto keys = tagged_keys();
  // the frontend may name a field for an independent loop; the runtime need not follow it
  auto copy = spec(Kind::independent, {2}, {array("out", Role::local, 2, true, {{2, 0, 0}})});
  copy.line = 2;
  std::tuple<> none;
  std::vector<std::uint64_t> first_order;
  for (int epoch = 0; epoch < 3; ++epoch) {
    codegen::run_loop(tagged_rotation_spec(), data, keys, std::tie(W, H), none, tagged_mf_body);
    const std::vector<std::uint64_t> order = last_order();
    replay(const_cast<std::vector<Tagged>&>(records), order,
           [&](const Tagged& r) { tagged_mf_body(r, W0, H0); });
    EXPECT_TRUE(bitwise_equal(W, W0));
    EXPECT_TRUE(bitwise_equal(H, H0));
    if (epoch == 0) {
      first_order = order;
    } else {
      EXPECT_EQ(order, first_order) << "the rotation's layout changed between epochs";
    }

    const std::vector<Tagged> before = local_records(data);
    DistArray<float, 1> out({n});
    double sum = 0;
    codegen::run_loop(copy, data, keys, std::tie(out), std::tie(sum),
                      [](const Tagged& r, auto& out, double& sum) {
                        out[r.id] = 2 * r.value;
                        sum += r.value;
                      });
    const std::vector<std::uint64_t> independent_order = last_order();
    EXPECT_TRUE(same_records(before, local_records(data)))
        << "the independent loop moved or reordered the records";
    std::vector<std::uint64_t> sorted = independent_order;
    std::sort(sorted.begin(), sorted.end());
    ASSERT_EQ(sorted.size(), records.size());
    for (std::size_t i = 0; i < sorted.size(); ++i) {
      ASSERT_EQ(sorted[i], i) << "record " << i << " not applied exactly once";
    }
    double expected = 0;
    for (const Tagged& r : records) {
      EXPECT_EQ(out[r.id], 2 * r.value)
          << "out(" << r.id << ") on rank " << Session::instance().rank();
      expected += r.value; // values are small integers: every order sums exactly
    }
    EXPECT_EQ(sum, expected);
  }
}

/// acc[user] = 0.75 acc[user] + value: the result depends on the order of the records.
auto order_body = [](const Tagged& r, auto& acc) { acc[r.user] = acc[r.user] * 0.75 + r.value; };

TEST(AlternatingPlans, SerialLoopAfterRotationRunsInDatasetOrder) {
  CaptureOrders capture;
  const int users = 19, items = 29, k = 2, n = 2000;
  std::vector<Tagged> records = make_tagged(n, users, items, 21);
  Dataset<Tagged> data = share_of(records);
  DistArray<double, 2> W({users, k}), H({items, k});
  W.fill_normal(0.0, 0.1, 7);
  H.fill_normal(0.0, 0.1, 8);
  auto W0 = W, H0 = H;
  const auto keys = tagged_keys();
  std::tuple<> none;
  // the rotation after a serial loop lays the records out again (the serial loop put them
  // back in the dataset's order) and still equals a serial replay of its recorded order
  auto rotate = [&] {
    codegen::run_loop(tagged_rotation_spec(), data, keys, std::tie(W, H), none, tagged_mf_body);
    replay(records, last_order(), [&](const Tagged& r) { tagged_mf_body(r, W0, H0); });
    EXPECT_TRUE(bitwise_equal(W, W0));
    EXPECT_TRUE(bitwise_equal(H, H0));
  };
  auto serial = spec(Kind::serial, {}, {array("acc", Role::partitioned, 0, true, {{0, 0, 0}})});
  serial.line = 3;
  auto stop = spec(Kind::serial, {}, {array("acc", Role::partitioned, 0, true, {{0, 0, 0}})});
  stop.line = 4;
  for (int round = 0; round < 2; ++round) {
    rotate();

    DistArray<double, 1> acc({users}), acc0({users});
    codegen::run_loop(serial, data, keys, std::tie(acc), none, order_body);
    detail::take_captured_orders();
    for (const Tagged& r : records) {
      order_body(r, acc0);
    }
    EXPECT_TRUE(bitwise_equal(acc, acc0)) << "round " << round;

    // a `break` body: applies records up to the first 5-star rating of the dataset's order
    rotate();
    DistArray<double, 1> seen({users}), seen0({users});
    codegen::run_loop(stop, data, keys, std::tie(seen), none, [](const Tagged& r, auto& seen) {
      if (r.value >= 5.0f) {
        return false;
      }
      seen[r.user] = seen[r.user] * 0.5 + r.id;
      return true;
    });
    detail::take_captured_orders();
    for (const Tagged& r : records) {
      if (r.value >= 5.0f) {
        break;
      }
      seen0[r.user] = seen0[r.user] * 0.5 + r.id;
    }
    EXPECT_TRUE(bitwise_equal(seen, seen0)) << "round " << round;
  }
  EXPECT_EQ(data.size(), n);
}

} // namespace
} // namespace rotor::test
