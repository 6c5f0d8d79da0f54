// Read-only arithmetic locals the body lambda captures by value (issue 19;
// frontend/src/CopiedScalars.h): the shapes rotor-cc copies, and every way a local can change or
// escape, which keeps it captured by reference.
#include "rotor/frontend/Frontend.h"

#include "FrontendTestOptions.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>

namespace {

using rotor::frontend::FileResult;
using rotor::frontend::test::options;

const char* kPrelude = R"(#include "common.h"
using Data = rotor::Dataset<Rating>;
using Mat = rotor::DistArray<float, 2>;
void by_value(float);
void by_const_reference(const float&);
struct Vec {
  float x;
};
inline Vec operator*(const float& s, const Vec& v) { return Vec{s * v.x}; }
inline const float& larger(const float& a, const float& b) { return a > b ? a : b; }
)";

struct Case {
  const char* name;
  const char* source;   ///< one function with one annotated loop (a parallel plan)
  const char* captures; ///< the body lambda's capture list, as rotor-cc writes it
};

const Case kCases[] = {
    // ---- copied: nothing can change the local while the loop runs ----
    {"parameters", R"(
void f(Data& d, Mat& W, float lr, float reg) {
#pragma rotor parallel_for
  for (const Rating& r : d) {
    W(r.user, 0) += lr * (r.value - reg * W(r.user, 0));
  } })",
     "&, lr, reg"},
    {"locals_assigned_before", R"(
void f(Data& d, Mat& W) {
  double mean = 0;
  int n = 2;
  mean = 3.5;
  mean /= n;
  ++n;
#pragma rotor parallel_for
  for (const Rating& r : d) {
    W(r.user, 0) += static_cast<float>(r.value - mean) * n;
  } })",
     "&, mean, n"},
    {"decayed_between_runs", R"(
void f(Data& d, Mat& W, int epochs) {
  float lr = 0.1f;
  for (int e = 0; e < epochs; ++e) {
#pragma rotor parallel_for
    for (const Rating& r : d) {
      W(r.user, 0) += lr * r.value;
    }
    lr *= 0.9f;
    by_value(lr);
  } })",
     "&, lr"},
    {"enum_and_unevaluated", R"(
enum Mode { add, scale };
void f(Data& d, Mat& W, Mode mode) {
  float lr = 0.5f;
#pragma rotor parallel_for
  for (const Rating& r : d) {
    W(r.user, 0) += mode == add ? r.value * static_cast<float>(sizeof(lr)) : lr;
  } })",
     "&, mode, lr"},
    {"const_reference_argument", R"(
void f(Data& d, Mat& W, float lr) {
#pragma rotor parallel_for
  for (const Rating& r : d) {
    W(r.user, 0) += (lr * Vec{r.value}).x;
  } })",
     "&, lr"},
    {"serial_plan_reads", R"(
void f(Data& d, Mat& W, float lr) {
#pragma rotor parallel_for
  for (const Rating& r : d) {
    W(r.user, 0) = lr * W(r.item, 0);
  } })",
     "&, lr"},
    // ---- by reference: the local can change, escape, or is no plain local ----
    {"serial_plan_const_reference_argument", R"(
void f(Data& d, Mat& W, float lr) {
#pragma rotor parallel_for
  for (const Rating& r : d) {
    W(r.user, 0) = (lr * Vec{W(r.item, 0)}).x;
  } })",
     "&"},
    {"reference_returned", R"(
void f(Data& d, Mat& W, float lr) {
#pragma rotor parallel_for
  for (const Rating& r : d) {
    W(r.user, 0) += larger(lr, r.value);
  } })",
     "&"},
    {"constant_only", R"(
void f(Data& d, Mat& W) {
  const int K = 4;
#pragma rotor parallel_for
  for (const Rating& r : d) {
    for (int k = 0; k < K; ++k) { W(r.user, k) += r.value; }
  } })",
     "&"},
    {"address_taken_before", R"(
void f(Data& d, Mat& W, float lr) {
  float* p = &lr;
  *p = 0.5f;
#pragma rotor parallel_for
  for (const Rating& r : d) {
    W(r.user, 0) += lr * r.value;
  } })",
     "&"},
    {"bound_to_reference", R"(
void f(Data& d, Mat& W, float lr) {
  float& alias = lr;
  alias = 0.5f;
#pragma rotor parallel_for
  for (const Rating& r : d) {
    W(r.user, 0) += lr * r.value;
  } })",
     "&"},
    {"passed_by_reference_after", R"(
void f(Data& d, Mat& W, float lr) {
#pragma rotor parallel_for
  for (const Rating& r : d) {
    W(r.user, 0) += lr * r.value;
  }
  by_const_reference(lr); })",
     "&"},
    {"written_in_a_lambda", R"(
void f(Data& d, Mat& W, float lr) {
  auto decay = [&] { lr *= 0.5f; };
  decay();
#pragma rotor parallel_for
  for (const Rating& r : d) {
    W(r.user, 0) += lr * r.value;
  } })",
     "&"},
    {"read_in_a_lambda_in_the_loop", R"(
void f(Data& d, Mat& W, float lr) {
#pragma rotor parallel_for
  for (const Rating& r : d) {
    auto step = [&](float x) { return lr * x; };
    W(r.user, 0) += step(r.value);
  } })",
     "&"},
    {"static_local", R"(
void f(Data& d, Mat& W) {
  static float lr = 0.1f;
#pragma rotor parallel_for
  for (const Rating& r : d) {
    W(r.user, 0) += lr * r.value;
  } })",
     "&"},
    {"volatile_local", R"(
void f(Data& d, Mat& W) {
  volatile float lr = 0.1f;
#pragma rotor parallel_for
  for (const Rating& r : d) {
    W(r.user, 0) += lr * r.value;
  } })",
     "&"},
    {"pointer_local", R"(
void f(Data& d, Mat& W, const float* scale) {
#pragma rotor parallel_for
  for (const Rating& r : d) {
    W(r.user, 0) += scale[0] * r.value;
  } })",
     "&"},
    {"reference_parameter", R"(
void f(Data& d, Mat& W, const float& lr) {
#pragma rotor parallel_for
  for (const Rating& r : d) {
    W(r.user, 0) += lr * r.value;
  } })",
     "&"},
    {"template_function", R"(
template <typename T>
void g(Data& d, Mat& W, T lr) {
#pragma rotor parallel_for
  for (const Rating& r : d) {
    W(r.user, 0) += static_cast<float>(lr) * r.value;
  } }
void f(Data& d, Mat& W) { g(d, W, 0.5f); })",
     "&"},
    {"reduction_is_no_copy", R"(
void f(Data& d, Mat& W, float lr) {
  double loss = 0;
#pragma rotor parallel_for
  for (const Rating& r : d) {
    loss += r.value;
    W(r.user, 0) += lr * r.value;
  } })",
     "&, lr"},
};

std::string case_name(const testing::TestParamInfo<Case>& info) {
  return info.param.name;
}

class CopiedScalars : public testing::TestWithParam<Case> {};

TEST_P(CopiedScalars, CaptureList) {
  const Case& c = GetParam();
  const FileResult r =
      rotor::frontend::process_source(std::string(kPrelude) + c.source, "t.cpp", options());
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.loops.size(), 1U);
  ASSERT_TRUE(r.changed) << r.rewritten;
  const std::size_t call = r.rewritten.find("::rotor::codegen::run_loop(");
  ASSERT_NE(call, std::string::npos) << r.rewritten;
  std::smatch m;
  const std::string after = r.rewritten.substr(call);
  ASSERT_TRUE(std::regex_search(after, m, std::regex(R"(\n\s*\[(&[^\]]*)\]\()"))) << after;
  EXPECT_EQ(m[1].str(), c.captures) << after;
}

INSTANTIATE_TEST_SUITE_P(Shapes, CopiedScalars, ::testing::ValuesIn(kCases), case_name);

} // namespace
