// Whether a loop body may throw (frontend/src/ThrowAnalysis.h): the runtime keeps each step's
// changes to undo it only for bodies that may, so a body wrongly found not to throw would leave
// a half-done step behind an exception. Each case is one small program with one loop.
#include "rotor/frontend/Frontend.h"

#include "FrontendTestOptions.h"

#include <gtest/gtest.h>

#include <string>

namespace {

const char* kPrelude = R"(#include "common.h"
#include <Eigen/Dense>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <vector>
using Data = rotor::Dataset<Rating>;
using Mat = rotor::DistArray<float, 2>;
)";

struct Case {
  const char* name;
  const char* source; ///< one function with one annotated loop
  bool may_throw;
};

const Case kCases[] = {
    {"sgd_rows", R"(
void f(Data& d, Mat& W, Mat& H) {
#pragma rotor parallel_for
  for (const Rating& r : d) {
    auto w = W.row(r.user); auto h = H.row(r.item);
    const float e = r.value - w.dot(h);
    w += 0.01f * (e * h - 0.02f * w); h += 0.01f * (e * w - 0.02f * h);
  } })",
     false},
    {"math_and_helper", R"(
float clip(float x) { return x > 1 ? 1 : std::sqrt(std::exp(x)); }
void f(Data& d, Mat& W) {
#pragma rotor parallel_for
  for (const Rating& r : d) { W(r.user, 0) = clip(W(r.user, 0)); } })",
     false},
    {"throw_in_body", R"(
void f(Data& d, Mat& W) {
#pragma rotor parallel_for
  for (const Rating& r : d) { if (r.value < 0) throw std::runtime_error("bad"); W(r.user, 0) += 1; } })",
     true},
    {"throw_in_helper", R"(
void check(float x) { if (x != x) throw std::domain_error("nan"); }
void f(Data& d, Mat& W) {
#pragma rotor parallel_for
  for (const Rating& r : d) { check(r.value); W(r.user, 0) += 1; } })",
     true},
    {"local_vector_allocates", R"(
void f(Data& d, Mat& W) {
#pragma rotor parallel_for
  for (const Rating& r : d) { std::vector<float> p(4); p[0] = 1; W(r.user, 0) += p[0]; } })",
     true},
    {"dynamic_eigen_local_allocates", R"(
void f(Data& d, Mat& W) {
#pragma rotor parallel_for
  for (const Rating& r : d) { Eigen::VectorXf v = W.row(r.user); W(r.user, 0) += v.sum(); } })",
     true},
    {"at_throws", R"(
void f(Data& d, Mat& W, const std::vector<float>& scale) {
#pragma rotor parallel_for
  for (const Rating& r : d) { W(r.user, 0) *= scale.at(r.item); } })",
     true},
    {"unseen_function", R"(
float remote(float);
void f(Data& d, Mat& W) {
#pragma rotor parallel_for
  for (const Rating& r : d) { W(r.user, 0) = remote(W(r.user, 0)); } })",
     true},
    {"unseen_noexcept_function", R"(
float remote(float) noexcept;
void f(Data& d, Mat& W) {
#pragma rotor parallel_for
  for (const Rating& r : d) { W(r.user, 0) = remote(W(r.user, 0)); } })",
     false},
    {"std_function_call", R"(
void f(Data& d, Mat& W, const std::function<float(float)>& g) {
#pragma rotor parallel_for
  for (const Rating& r : d) { W(r.user, 0) = g(W(r.user, 0)); } })",
     true},
    {"virtual_call", R"(
struct Loss { virtual float at(float x) const { return x; } virtual ~Loss() = default; };
void f(Data& d, Mat& W, const Loss& loss) {
#pragma rotor parallel_for
  for (const Rating& r : d) { W(r.user, 0) = loss.at(W(r.user, 0)); } })",
     true},
    {"lambda_that_throws", R"(
void f(Data& d, Mat& W) {
  auto g = [](float x) { if (x > 9) throw 1; return x; };
#pragma rotor parallel_for
  for (const Rating& r : d) { W(r.user, 0) = g(W(r.user, 0)); } })",
     true},
};

class MayThrow : public ::testing::TestWithParam<Case> {};

TEST_P(MayThrow, Found) {
  const Case& c = GetParam();
  const auto r = rotor::frontend::process_source(std::string(kPrelude) + c.source, "t.cpp",
                                                 rotor::frontend::test::options());
  ASSERT_TRUE(r.ok) << c.name;
  ASSERT_EQ(r.loops.size(), 1u) << c.name;
  EXPECT_EQ(r.loops[0].may_throw, c.may_throw) << c.name;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return info.param.name;
}

INSTANTIATE_TEST_SUITE_P(Bodies, MayThrow, ::testing::ValuesIn(kCases), case_name);

TEST(MayThrow, CheckedAccessesDoNot) {
  // the access check's logic_error reports a Rotor bug; it does not make steps undoable, so the
  // rewritten source is the same in checked (asan, debug) and unchecked builds
  auto o = rotor::frontend::test::options();
  o.clang_args.push_back("-DROTOR_CHECK_ACCESS=1");
  const auto r = rotor::frontend::process_source(std::string(kPrelude) + R"(
void f(Data& d, Mat& W) {
#pragma rotor parallel_for
  for (const Rating& r : d) { W(r.user, 0) += 1; } })",
                                                 "t.cpp", o);
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.loops.size(), 1u);
  EXPECT_FALSE(r.loops[0].may_throw);
}

} // namespace
