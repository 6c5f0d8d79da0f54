// The per-rank memory estimate before a loop (ROTOR_MEMORY_AVAILABLE stands in for the machine).

#include "LoopTestUtil.h"

#include <cstdlib>
#include <string>

namespace rotor::test {
namespace {

using codegen::Kind;
using codegen::Role;

void run_histogram(int line, DistArray<double, 1>& sums, Dataset<Rating>& ratings) {
  auto s = spec(Kind::data_parallel, {}, {array("sums", Role::buffered, -1, true, {{-1, 0, 0}})});
  s.line = line; // the estimate is made once per loop site
  std::tuple<> none;
  codegen::run_loop(s, ratings, codegen::keys(&Rating::user, &Rating::item), std::tie(sums), none,
                    [](const Rating& r, auto& sums) { sums[r.item] += r.value; });
}

TEST(MemoryCheck, RefusesALoopWhoseBuffersExceedTheAvailableMemory) {
  Dataset<Rating> ratings(make_ratings(100, 10, 10, 1));
  DistArray<double, 1> sums({200000}); // 1.6 MB per worker copy
  ::setenv("ROTOR_MEMORY_AVAILABLE", "100000", 1);
  try {
    run_histogram(__LINE__, sums, ratings);
    FAIL() << "the loop ran although its buffers exceed the available memory";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("would not fit in memory"), std::string::npos) << what;
    EXPECT_NE(what.find("test.cpp"), std::string::npos) << what;
  }
  ::setenv("ROTOR_MEMORY_AVAILABLE", "1e12", 1);
  EXPECT_NO_THROW(run_histogram(__LINE__, sums, ratings));
  ::unsetenv("ROTOR_MEMORY_AVAILABLE");
}

} // namespace
} // namespace rotor::test
