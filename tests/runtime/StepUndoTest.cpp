// An exception in a cell leaves the state of the last completed step: the arrays, the records
// and the reductions equal a serial run of a prefix of the loop's order that ends before the
// throwing record (docs/design/codegen-contract.md, "Exceptions"). Single process only: across
// ranks an exception in a loop ends the job (runtime_failure tests).
#include "LoopTestUtil.h"
#include "OrderRecorder.h"

#include <stdexcept>

namespace rotor::test {
namespace {

using codegen::Kind;
using codegen::Role;

struct Visit {
  std::int32_t user;
  std::int32_t item;
  std::int32_t id;
  std::int32_t seen; // written by the body
};

constexpr int kUsers = 23, kItems = 17;

struct State {
  std::vector<std::uint64_t> users, items;
  std::vector<std::int32_t> seen; // by record id
  std::int64_t sum = 0;
  bool operator==(const State& o) const {
    return users == o.users && items == o.items && seen == o.seen && sum == o.sum;
  }
};

/// Order-sensitive integer updates: any other order of two conflicting records differs.
void apply(Visit& r, std::uint64_t* users, std::uint64_t* items, std::int64_t& sum) {
  users[r.user] = users[r.user] * 3u + static_cast<std::uint64_t>(r.id) + items[r.item];
  items[r.item] = items[r.item] * 5u + static_cast<std::uint64_t>(r.id);
  r.seen += 1;
  sum += r.id;
}

std::vector<Visit> visits(int n) {
  std::vector<Visit> out;
  for (const Rating& r : make_ratings(n, kUsers, kItems, 41)) {
    out.push_back({r.user, r.item, static_cast<std::int32_t>(out.size()), 0});
  }
  return out;
}

/// The state after a serial run of the first `count` records of `order`.
State serial_prefix(const std::vector<Visit>& records, const std::vector<std::uint64_t>& order,
                    std::size_t count) {
  State s{std::vector<std::uint64_t>(kUsers, 1), std::vector<std::uint64_t>(kItems, 2), {}, 0};
  std::vector<Visit> r = records;
  for (std::size_t k = 0; k < count; ++k) {
    apply(r[order[k]], s.users.data(), s.items.data(), s.sum);
  }
  for (const Visit& v : r) {
    s.seen.push_back(v.seen);
  }
  return s;
}

/// Runs the loop under `spec` over fresh copies of `records`; the body throws at record `victim`
/// (-1: never). Returns the state after the loop (or after its exception).
State run(const codegen::LoopSpec& spec, const std::vector<Visit>& records, int victim,
          bool& threw) {
  detail::forget_loop_executions(); // each run draws the order of the first (--rotor-order-seed)
  Dataset<Visit> data(records);
  DistArray<std::uint64_t, 1> users({kUsers}), items({kItems});
  users.fill(1);
  items.fill(2);
  std::int64_t sum = 0;
  threw = false;
  try {
    codegen::run_loop(spec, data, codegen::keys(&Visit::user, &Visit::item, &Visit::id),
                      std::tie(users, items), std::tie(sum),
                      [victim](Visit& r, auto& U, auto& I, auto& s) {
                        if (r.id == victim) {
                          throw std::runtime_error("victim");
                        }
                        apply(r, U.data(), I.data(), s);
                      });
  } catch (const std::runtime_error&) {
    threw = true;
  }
  State s{std::vector<std::uint64_t>(users.data(), users.data() + kUsers),
          std::vector<std::uint64_t>(items.data(), items.data() + kItems),
          std::vector<std::int32_t>(records.size()), sum};
  for (const Visit& v : data) {
    s.seen[static_cast<std::size_t>(v.id)] = v.seen;
  }
  return s;
}

/// The run that throws at the last record of step `step` (counted from the end when negative) of
/// the loop's recorded order ends in the state of the serial run of the steps before it; the
/// other cells of that step ran to their end, and all but one record of the throwing cell.
void expect_step_undone(const codegen::LoopSpec& spec, int step) {
  if (Session::instance().ranks() > 1) {
    GTEST_SKIP() << "across ranks an exception in a loop ends the job";
  }
  const std::vector<Visit> records = visits(600);
  std::vector<std::uint64_t> order;
  {
    CaptureOrders capture;
    bool threw = false;
    const State full = run(spec, records, -1, threw);
    order = last_order();
    ASSERT_EQ(full, serial_prefix(records, order, order.size()));
  }
  const std::vector<std::size_t> sizes = detail::last_step_sizes();
  ASSERT_FALSE(sizes.empty());
  const auto s = static_cast<std::size_t>(step < 0 ? static_cast<int>(sizes.size()) + step
                                                   : std::min<int>(step, sizes.size() - 1));
  std::size_t before = 0;
  for (std::size_t k = 0; k < s; ++k) {
    before += sizes[k];
  }
  ASSERT_GT(sizes[s], 1u);
  const std::uint64_t victim = order[before + sizes[s] - 1];
  bool threw = false;
  const State after = run(spec, records, static_cast<int>(victim), threw);
  ASSERT_TRUE(threw);
  EXPECT_TRUE(after == serial_prefix(records, order, before))
      << "the exception at the end of step " << s << " of " << sizes.size()
      << " did not leave the state of the " << before << " records of the steps before it";
}

codegen::LoopSpec rotation() {
  codegen::LoopSpec s = spec(Kind::rotation, {0, 1},
                             {array("U", Role::partitioned, 0, true, {{0, 0, 0}}),
                              array("I", Role::rotating, 1, true, {{1, 0, 0}})});
  s.writes_records = true;
  s.may_throw = true;
  return s;
}

TEST(StepUndo, RotationEarlyStep) {
  expect_step_undone(rotation(), 1);
}

TEST(StepUndo, RotationLateStep) {
  expect_step_undone(rotation(), -1);
}

TEST(StepUndo, SerialPlanKeepsTheRecordsBeforeTheThrow) {
  codegen::LoopSpec s = rotation();
  s.kind = Kind::serial;
  if (Session::instance().ranks() > 1) {
    GTEST_SKIP() << "across ranks an exception in a loop ends the job";
  }
  const std::vector<Visit> records = visits(300);
  std::vector<std::uint64_t> order(records.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    order[i] = i;
  }
  bool threw = false;
  const State after = run(s, records, 150, threw);
  ASSERT_TRUE(threw);
  EXPECT_EQ(after, serial_prefix(records, order, 150)); // like the serial program
}

} // namespace
} // namespace rotor::test
