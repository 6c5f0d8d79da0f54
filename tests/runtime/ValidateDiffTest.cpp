// --rotor-validate's comparisons (runtime/src/ValidateDiff.h): the first difference is named
// with its index and both values; reductions pass within their tolerance; records match by id.
#include "ValidateDiff.h"

#include "rotor/rotor.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace rotor::detail {
namespace {

ArrayBinding binding_of(DistArray<float, 2>& a, const char* name) {
  ArrayBinding b;
  b.identity = &a;
  b.data = reinterpret_cast<char*>(a.data());
  b.elem_bytes = sizeof(float);
  b.element_type = ElementType::f32;
  b.shape = {a.shape()[0], a.shape()[1]};
  b.name = name;
  return b;
}

TEST(ValidateDiff, ArraysNameTheFirstDifferingElement) {
  DistArray<float, 2> parallel({20, 4}), replay({20, 4});
  parallel.fill_uniform(0.f, 1.f, 9);
  replay = parallel;
  const ArrayBinding b = binding_of(parallel, "W");
  EXPECT_EQ(array_difference(b, reinterpret_cast<const char*>(replay.data())), "");
  parallel(17, 3) = 0.5f;
  replay(17, 3) = 0.25f;
  replay(18, 0) = -1.f; // later: not the first
  EXPECT_EQ(array_difference(b, reinterpret_cast<const char*>(replay.data())),
            "W(17, 3) = 0.5 in the parallel run, 0.25 in the serial replay of its order");
}

TEST(ValidateDiff, ArraysCompareBitwise) {
  DistArray<float, 2> parallel({1, 1}), replay({1, 1});
  parallel(0, 0) = 0.0f;
  replay(0, 0) = -0.0f; // equal as numbers, not as bits
  EXPECT_NE(
      array_difference(binding_of(parallel, "H"), reinterpret_cast<const char*>(replay.data())),
      "");
}

TEST(ValidateDiff, ReductionsUseTheirTolerance) {
  const ReductionOps& d = ReductionOpsFor<double>::ops;
  const double a = 1000.0, close = 1000.0 * (1 + 1e-12), far = 1000.0 * (1 + 1e-6);
  EXPECT_EQ(reduction_difference("loss", d, &a, &close), "");
  EXPECT_NE(reduction_difference("loss", d, &a, &far).find("reduction loss = 1000 in the parallel"),
            std::string::npos);
  const ReductionOps& f = ReductionOpsFor<Accumulator<float>>::ops;
  const Accumulator<float> x(100.f), y(100.01f), z(101.f);
  EXPECT_EQ(reduction_difference("err", f, &x, &y), "");
  EXPECT_NE(reduction_difference("err", f, &x, &z), "");
  const ReductionOps& i = ReductionOpsFor<std::int64_t>::ops;
  const std::int64_t n = 3000, m = 2999;
  EXPECT_EQ(reduction_difference("count", i, &n, &m),
            "reduction count = 3000 in the parallel run, 2999 in the serial replay of its order");
}

RecordSet records_of(std::vector<std::int32_t> values, std::vector<std::uint64_t> ids) {
  RecordSet r;
  r.bytes.resize(values.size() * 4);
  std::memcpy(r.bytes.data(), values.data(), r.bytes.size());
  r.ids = std::move(ids);
  return r;
}

TEST(ValidateDiff, RecordsMatchById) {
  const RecordSet replay = records_of({10, 11, 12}, {2, 0, 1});
  EXPECT_EQ(record_difference(records_of({11, 12, 10}, {0, 1, 2}), replay, 4), "");
  EXPECT_EQ(record_difference(records_of({11, 13, 10}, {0, 1, 2}), replay, 4),
            "record 1, bytes 0..3 = 0x0d000000 in the parallel run, 0x0c000000 in the serial "
            "replay of its order");
}

TEST(ValidateDiff, OrderMustApplyEveryRecordOnce) {
  const RecordSet records = records_of({1, 2, 3}, {0, 1, 2});
  EXPECT_EQ(order_difference({2, 0, 1}, records), "");
  EXPECT_NE(order_difference({2, 0}, records), "");
  EXPECT_NE(order_difference({2, 0, 0}, records).find("twice"), std::string::npos);
  EXPECT_NE(order_difference({2, 0, 7}, records).find("not in the dataset"), std::string::npos);
}

} // namespace
} // namespace rotor::detail
