// The fixed order in which a device loop's reduction partials are summed on the device
// (runtime/include/rotor/runtime/detail/DeviceReduce.h), replayed on the host: every term once,
// independent of anything but the count, exact for integers; tests/cuda compares the device
// with this replay bitwise.
#include "rotor/runtime/detail/DeviceReduce.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace rotor::test {
namespace {

TEST(DeviceReduce, EveryTermOnceInAFixedOrder) {
  const std::int64_t grid = std::int64_t{detail::k_reduce_blocks} * detail::k_reduce_threads;
  for (std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{255}, grid - 1, grid,
                         grid + 1, 3 * grid + 17}) {
    // distinct powers of two per position would overflow; integers are exact in any order
    std::vector<std::int64_t> ints(static_cast<std::size_t>(n));
    std::int64_t expected = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      ints[static_cast<std::size_t>(i)] = (i * 7919) % 1000 + 1;
      expected += ints[static_cast<std::size_t>(i)];
    }
    EXPECT_EQ(detail::reduce_in_device_order(ints.data(), n), expected) << n;
  }
}

TEST(DeviceReduce, DoublesAreDeterministicCloseToTheSerialSumAndNotItsOrder) {
  std::mt19937_64 rng(3);
  std::vector<double> v(200000);
  for (double& x : v) {
    x = std::ldexp(std::uniform_real_distribution<double>(-1, 1)(rng),
                   static_cast<int>(rng() % 40) - 20);
  }
  const auto n = static_cast<std::int64_t>(v.size());
  double serial = 0;
  for (double x : v) {
    serial += x;
  }
  const double a = detail::reduce_in_device_order(v.data(), n);
  EXPECT_EQ(a, detail::reduce_in_device_order(v.data(), n));
  EXPECT_NEAR(a, serial, 1e-9 * std::fabs(serial) + 1e-12);
  EXPECT_NE(a, serial) << "another order than the serial one (the device test is not vacuous)";
}

} // namespace
} // namespace rotor::test
