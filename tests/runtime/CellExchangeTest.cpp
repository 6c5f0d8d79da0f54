// The record exchange straight into cells and tiles (several ranks, no record ids kept): it must
// lay the records out exactly as the exchange that carries ids does, and its compact origin (two
// bytes per record) must still give serial loops and shuffles the dataset's order.
#include "LoopTestUtil.h"

namespace rotor::test {
namespace {

using codegen::Kind;
using codegen::Role;

std::vector<Tagged> local_records(const Dataset<Tagged>& d) {
  return std::vector<Tagged>(d.begin(), d.end());
}

bool same_records(const std::vector<Tagged>& a, const std::vector<Tagged>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(Tagged)) == 0);
}

/// Two epochs of the rotation over a fresh share of `records`; returns W, H and the layout.
struct Rotated {
  DistArray<double, 2> W, H;
  std::vector<Tagged> layout;
};
Rotated rotate_twice(const std::vector<Tagged>& records, Dataset<Tagged>& data, int users,
                     int items) {
  Rotated out{DistArray<double, 2>({users, 3}), DistArray<double, 2>({items, 3}), {}};
  detail::forget_loop_executions(); // both calls draw the same orders (--rotor-order-seed)
  out.W.fill_normal(0.0, 0.1, 11);
  out.H.fill_normal(0.0, 0.1, 12);
  std::tuple<> none;
  for (int epoch = 0; epoch < 2; ++epoch) {
    codegen::run_loop(tagged_rotation_spec(), data, tagged_keys(), std::tie(out.W, out.H), none,
                      tagged_mf_body);
  }
  out.layout = local_records(data);
  EXPECT_EQ(data.size(), static_cast<std::int64_t>(records.size()));
  return out;
}

void expect_layout_like_the_exchange_with_ids(int users, int items, int n) {
  const std::vector<Tagged> records = make_tagged(n, users, items, 33);
  Dataset<Tagged> plain = share_of(records); // no ids: records go straight into their cells
  const Rotated a = rotate_twice(records, plain, users, items);
  Rotated b{DistArray<double, 2>({1, 1}), DistArray<double, 2>({1, 1}), {}};
  {
    CaptureOrders capture; // ids kept: the exchange that carries them, then the sort by cell
    Dataset<Tagged> with_ids = share_of(records);
    b = rotate_twice(records, with_ids, users, items);
    detail::take_captured_orders();
  }
  EXPECT_TRUE(same_records(a.layout, b.layout)) << "rank " << Session::instance().rank();
  EXPECT_TRUE(bitwise_equal(a.W, b.W));
  EXPECT_TRUE(bitwise_equal(a.H, b.H));
}

TEST(CellExchange, LaysOutLikeTheExchangeThatCarriesIds) {
  // enough records for several pages per cell and more pages than the windows hold
  expect_layout_like_the_exchange_with_ids(41, 53, 300000);
}

// Cells cut into tiles (--rotor-blocks=32: 1024 groups of a cell's tile, more than one byte
// numbers): the exchange puts the records straight into their tiles.
TEST(CellExchange, TilesLaidOutLikeTheExchangeThatCarriesIds) {
  BlocksSetting blocks("32");
  expect_layout_like_the_exchange_with_ids(101, 131, 300000);
}

/// acc[user] = 0.75 acc[user] + value: the result depends on the order of the records.
auto order_body = [](const Tagged& r, auto& acc) { acc[r.user] = acc[r.user] * 0.75 + r.value; };

void expect_serial_loop_after_it_in_dataset_order(int users, int items, int n) {
  const std::vector<Tagged> records = make_tagged(n, users, items, 33);
  Dataset<Tagged> data = share_of(records);
  rotate_twice(records, data, users, items);
  // another rotation (by item, then user) over the laid-out records: the compact origin
  // becomes positions, which travel with the records
  auto by_item = spec(Kind::rotation, {1, 0},
                      {array("H", Role::partitioned, 1, true, {{1, 0, 0}, {-1, 0, 0}}),
                       array("W", Role::rotating, 0, true, {{0, 0, 0}, {-1, 0, 0}})});
  by_item.line = 3;
  DistArray<double, 2> W({users, 3}), H({items, 3});
  std::tuple<> none;
  codegen::run_loop(by_item, data, tagged_keys(), std::tie(H, W), none,
                    [](const Tagged& r, auto& H, auto& W) { tagged_mf_body(r, W, H); });
  auto serial = spec(Kind::serial, {}, {array("acc", Role::partitioned, 0, true, {{0, 0, 0}})});
  serial.line = 2;
  DistArray<double, 1> acc({users}), acc0({users});
  codegen::run_loop(serial, data, tagged_keys(), std::tie(acc), none, order_body);
  for (const Tagged& r : records) {
    order_body(r, acc0);
  }
  EXPECT_TRUE(bitwise_equal(acc, acc0));
  // and the rotation lays the records out again afterwards, as the first time
  Dataset<Tagged> fresh = share_of(records);
  EXPECT_TRUE(same_records(rotate_twice(records, data, users, items).layout,
                           rotate_twice(records, fresh, users, items).layout));
}

TEST(CellExchange, SerialLoopAfterItSeesTheDatasetOrder) {
  expect_serial_loop_after_it_in_dataset_order(29, 31, 3000);
}

TEST(CellExchange, SerialLoopAfterTilesSeesTheDatasetOrder) {
  BlocksSetting blocks("32");
  expect_serial_loop_after_it_in_dataset_order(101, 131, 20000);
}

TEST(CellExchange, ShuffleAfterItFollowsDatasetPositions) {
  const int users = 17, items = 23, n = 2500;
  const std::vector<Tagged> records = make_tagged(n, users, items, 33);
  Dataset<Tagged> rotated = share_of(records), untouched = share_of(records);
  rotate_twice(records, rotated, users, items);
  rotated.shuffle(99);
  untouched.shuffle(99);
  EXPECT_TRUE(same_records(local_records(rotated), local_records(untouched)));
}

} // namespace
} // namespace rotor::test
