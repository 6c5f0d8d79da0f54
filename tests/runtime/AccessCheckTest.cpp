// Checked accesses (this file is compiled with ROTOR_CHECK_ACCESS): an access outside the block
// the plan gave the worker is a clear error naming the array, the index and the plan.
#include "LoopTestUtil.h"

#include <string>

namespace rotor::test {
namespace {

using codegen::Kind;
using codegen::Role;

codegen::LoopSpec mf_spec() {
  return spec(Kind::rotation, {0, 1},
              {array("W", Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}),
               array("H", Role::rotating, 1, true, {{1, 0, 0}, {-1, 0, 0}})});
}

TEST(AccessCheck, AccessesInsideTheFootprintPass) {
  Dataset<Rating> ratings(make_ratings(800, 20, 20, 3));
  DistArray<float, 2> W({20, 4}), H({20, 4});
  std::tuple<> none;
  codegen::run_loop(mf_spec(), ratings, codegen::keys(&Rating::user, &Rating::item), std::tie(W, H),
                    none, [](const Rating& r, auto& W, auto& H) {
                      W.row(r.user) += H.row(r.item);
                      H(r.item, 1) += 1.0f;
                    });
  SUCCEED();
}

TEST(AccessCheck, StrayAccessIsAnErrorNamingArrayIndexAndPlan) {
  if (Session::instance().workers() < 2) {
    GTEST_SKIP() << "one worker owns every block";
  }
  Dataset<Rating> ratings(make_ratings(800, 20, 20, 3));
  DistArray<float, 2> W({20, 4}), H({20, 4});
  std::tuple<> none;
  try {
    codegen::run_loop(mf_spec(), ratings, codegen::keys(&Rating::user, &Rating::item),
                      std::tie(W, H), none, [](const Rating& r, auto& W, auto& H) {
                        W.row(r.user) += H.row((r.item + 10) % 20); // not the worker's H block
                      });
    FAIL() << "expected an access-check error";
  } catch (const std::logic_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("access check failed"), std::string::npos) << what;
    EXPECT_NE(what.find("test.cpp:1"), std::string::npos) << what;
    EXPECT_NE(what.find("plan rotation"), std::string::npos) << what;
    EXPECT_NE(what.find("H("), std::string::npos) << what;
  }
}

} // namespace
} // namespace rotor::test
