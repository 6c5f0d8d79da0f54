#pragma once
// Helpers for the runtime tests: generated datasets, LoopSpec builders, serial replay of a
// recorded order, bitwise comparison of arrays.

#include "OrderLog.h"
#include "ScheduleSettings.h"
#include "rotor/distarray/detail/CounterRng.h"
#include "rotor/rotor.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace rotor::test {

struct Rating {
  std::int32_t user;
  std::int32_t item;
  float value;
};

struct Rating3 {
  std::int32_t user;
  std::int32_t item;
  std::int32_t time;
  float value;
};

struct Token {
  std::int32_t doc;
  std::int32_t word;
  std::int32_t topic;
};

struct Cell {
  std::int32_t i;
  std::int32_t j;
};

inline std::uint64_t mix(std::uint64_t x) {
  return detail::mix64(x);
}

/// Skewed (power-law-ish) ratings, the same on every rank.
inline std::vector<Rating> make_ratings(int n, int users, int items, std::uint64_t seed) {
  std::vector<Rating> out;
  for (int k = 0; k < n; ++k) {
    std::uint64_t h = mix(seed * 1000003u + static_cast<std::uint64_t>(k));
    int u = static_cast<int>((h % 1000) * (h % 1000) / 1000000.0 * users);
    int i = static_cast<int>((h >> 20) % static_cast<std::uint64_t>(items));
    float v = 1.0f + static_cast<float>((h >> 40) % 5);
    out.push_back({u, i, v});
  }
  return out;
}

/// A rating that carries its position in the whole dataset (to see where records went).
struct Tagged {
  std::int32_t user;
  std::int32_t item;
  std::int32_t id;
  float value;
};

inline std::vector<Tagged> make_tagged(int n, int users, int items, std::uint64_t seed) {
  std::vector<Tagged> out;
  for (const Rating& r : make_ratings(n, users, items, seed)) {
    out.push_back({r.user, r.item, static_cast<std::int32_t>(out.size()), r.value});
  }
  return out;
}

/// This rank's contiguous share of `all`, as a loader would read it.
template <class R> Dataset<R> share_of(const std::vector<R>& all) {
  const auto r = static_cast<std::size_t>(Session::instance().rank());
  const auto n = static_cast<std::size_t>(Session::instance().ranks());
  const std::size_t first = all.size() * r / n, last = all.size() * (r + 1) / n;
  return Dataset<R>::distributed(std::vector<R>(all.begin() + static_cast<std::ptrdiff_t>(first),
                                                all.begin() + static_cast<std::ptrdiff_t>(last)),
                                 first);
}

inline codegen::ArraySpec array(const char* name, codegen::Role role, int key, bool written,
                                std::vector<codegen::Dim> dims) {
  codegen::ArraySpec a;
  a.name = name;
  a.role = role;
  a.key = key;
  a.written = written;
  a.dims = std::move(dims);
  return a;
}

inline codegen::LoopSpec spec(codegen::Kind kind, std::vector<int> fields,
                              std::vector<codegen::ArraySpec> arrays, bool ordered = false) {
  codegen::LoopSpec s;
  s.file = "test.cpp";
  s.line = 1;
  s.kind = kind;
  s.fields = std::move(fields);
  s.ordered = ordered;
  s.arrays = std::move(arrays);
  return s;
}

/// The single captured loop order (capture must be on).
inline std::vector<std::uint64_t> last_order() {
  auto orders = detail::take_captured_orders();
  EXPECT_EQ(orders.size(), 1u);
  return orders.empty() ? std::vector<std::uint64_t>{} : orders.back().ids;
}

/// Applies `body(record)` to `records[id]` for every id of `order`.
template <class R, class Body>
void replay(std::vector<R>& records, const std::vector<std::uint64_t>& order, Body&& body) {
  ASSERT_EQ(order.size(), records.size()) << "the recorded order does not cover every record";
  std::vector<char> seen(records.size(), 0);
  for (std::uint64_t id : order) {
    ASSERT_LT(id, records.size());
    ASSERT_FALSE(seen[id]) << "record " << id << " applied twice";
    seen[id] = 1;
    body(records[id]);
  }
}

template <class T, int N>
::testing::AssertionResult bitwise_equal(const DistArray<T, N>& a, const DistArray<T, N>& b) {
  if (a.shape() != b.shape()) {
    return ::testing::AssertionFailure() << "shapes differ";
  }
  for (std::int64_t i = 0; i < a.size(); ++i) {
    if (std::memcmp(a.data() + i, b.data() + i, sizeof(T)) != 0) {
      return ::testing::AssertionFailure()
             << "element " << i << " differs: " << a.data()[i] << " vs " << b.data()[i];
    }
  }
  return ::testing::AssertionSuccess();
}

/// The MF-shaped tests' loop over Tagged records: one SGD step (learning rate 0.01), a rotation
/// over (user, item) with W partitioned by user and H rotating by item, and its key fields.
inline constexpr auto tagged_mf_body = [](const Tagged& r, auto& W, auto& H) {
  auto w = W.row(r.user);
  auto h = H.row(r.item);
  const double e = r.value - w.dot(h);
  w += 0.01 * e * h;
  h += 0.01 * e * w;
};

inline codegen::LoopSpec tagged_rotation_spec() {
  return spec(codegen::Kind::rotation, {0, 1},
              {array("W", codegen::Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}),
               array("H", codegen::Role::rotating, 1, true, {{1, 0, 0}, {-1, 0, 0}})});
}

inline auto tagged_keys() {
  return codegen::keys(&Tagged::user, &Tagged::item, &Tagged::id);
}

/// Turns order capture on for a test's lifetime.
struct CaptureOrders {
  CaptureOrders() {
    detail::set_order_capture(true);
    detail::take_captured_orders();
  }
  ~CaptureOrders() { detail::set_order_capture(false); }
};

/// --rotor-blocks (BlocksSetting) or --rotor-order-seed (SeedSetting) for the length of a test;
/// the session's setting again afterwards.
template <int Which> class ScheduleFlag {
public:
  explicit ScheduleFlag(const char* value) : before_(detail::schedule_settings()) {
    detail::parse_schedule_flag(name(), value, true);
  }
  ~ScheduleFlag() {
    detail::parse_schedule_flag(
        name(),
        Which == 0 ? (before_.blocks == 0 ? std::string("auto") : std::to_string(before_.blocks))
                   : std::to_string(before_.order_seed),
        true);
  }
  ScheduleFlag(const ScheduleFlag&) = delete;
  ScheduleFlag& operator=(const ScheduleFlag&) = delete;

private:
  static const char* name() { return Which == 0 ? "--rotor-blocks" : "--rotor-order-seed"; }
  const detail::ScheduleSettings before_;
};
using BlocksSetting = ScheduleFlag<0>;
using SeedSetting = ScheduleFlag<1>;

} // namespace rotor::test
