// How rotor-cc names a subscript's loop-invariant symbol in the run_loop call it writes at the
// loop (frontend/src/LoopSiteNames.h): the plain name where it finds the same variable there,
// `::name` / `this->name` where the loop's function shadows it, and no symbol at all (the
// subscript is unknown, the loop serial) where the loop cannot name it. Found by the execution
// fuzzer: a helper's global `shift` written as `shift` at a loop whose function has a parameter
// `shift` gave W's blocks the wrong offset.
#include "rotor/frontend/Frontend.h"

#include "FrontendTestOptions.h"

#include <gtest/gtest.h>

#include <string>

namespace {

using rotor::frontend::FileResult;
using rotor::frontend::test::options;

const char* kPrelude = R"(#include "common.h"
using Data = rotor::Dataset<Rating>;
using Vec = rotor::DistArray<float, 1>;
int shift = 5;
namespace ns { int offset = 2; }
)";

struct Case {
  const char* name;
  const char* source; ///< one annotated loop
  const char* offset; ///< the footprint's offset as written at the loop; "" when serial
};

const Case kCases[] = {
    {"global_in_helper", R"(
void bump(Vec& W, int u) { W[u + shift] += 1; }
void f(Data& d, Vec& W) {
#pragma rotor parallel_for
  for (const Rating& r : d) { bump(W, r.user); } })",
     "static_cast<std::int64_t>(shift)"},
    {"global_in_helper_shadowed_by_parameter", R"(
void bump(Vec& W, int u) { W[u + shift] += 1; }
void f(Data& d, Vec& W, int shift) {
#pragma rotor parallel_for
  for (const Rating& r : d) { bump(W, r.user); } })",
     "static_cast<std::int64_t>(::shift)"},
    {"global_in_helper_shadowed_by_a_later_local", R"(
void bump(Vec& W, int u) { W[u + shift] += 1; }
void f(Data& d, Vec& W) {
#pragma rotor parallel_for
  for (const Rating& r : d) { bump(W, r.user); }
  int shift = 0; (void)shift; })",
     "static_cast<std::int64_t>(::shift)"},
    {"global_in_helper_shadowed_by_a_local_enumerator", R"(
void bump(Vec& W, int u) { W[u + shift] += 1; }
void f(Data& d, Vec& W) {
  enum { shift = 0 };
#pragma rotor parallel_for
  for (const Rating& r : d) { bump(W, r.user); } })",
     "static_cast<std::int64_t>(::shift)"},
    {"namespace_global_from_another_namespace", R"(
namespace ns { void bump(Vec& W, int u) { W[u + offset] += 1; } }
namespace other { int offset = 0;
void f(Data& d, Vec& W) {
#pragma rotor parallel_for
  for (const Rating& r : d) { ns::bump(W, r.user); } } })",
     "static_cast<std::int64_t>(::ns::offset)"},
    {"member_shadowed_by_parameter", R"(
struct M { int base = 3;
  void add(Vec& V, int u) { V[u + base] += 1; }
  void sweep(Data& d, Vec& V, int base) {
#pragma rotor parallel_for
    for (const Rating& r : d) { add(V, r.user); } } };)",
     "static_cast<std::int64_t>(this->base)"},
    {"member_not_shadowed", R"(
struct M { int base = 3;
  void add(Vec& V, int u) { V[u + base] += 1; }
  void sweep(Data& d, Vec& V) {
#pragma rotor parallel_for
    for (const Rating& r : d) { add(V, r.user); } } };)",
     "static_cast<std::int64_t>(base)"},
    {"parameter_of_the_loop_function", R"(
void f(Data& d, Vec& W, int shift) {
#pragma rotor parallel_for
  for (const Rating& r : d) { W[r.user + shift] += 1; } })",
     "static_cast<std::int64_t>(shift)"},
    {"helper_static_local_cannot_be_named", R"(
void bump(Vec& W, int u) { static int local_shift = 1; W[u + local_shift] += 1; }
void f(Data& d, Vec& W) {
#pragma rotor parallel_for
  for (const Rating& r : d) { bump(W, r.user); } })",
     ""},
};

std::string case_name(const testing::TestParamInfo<Case>& info) {
  return info.param.name;
}

class LoopSiteNames : public testing::TestWithParam<Case> {};

TEST_P(LoopSiteNames, OffsetAsWrittenAtTheLoop) {
  const Case& c = GetParam();
  const FileResult r =
      rotor::frontend::process_source(std::string(kPrelude) + c.source, "t.cpp", options());
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.loops.size(), 1U);
  if (std::string(c.offset).empty()) {
    EXPECT_EQ(r.loops[0].plan.kind, rotor::analysis::PlanKind::serial) << r.rewritten;
    return;
  }
  EXPECT_NE(r.loops[0].plan.kind, rotor::analysis::PlanKind::serial) << r.rewritten;
  const std::string footprint = std::string("{{0, ") + c.offset + ", " + c.offset + "}}";
  EXPECT_NE(r.rewritten.find(footprint), std::string::npos) << footprint << "\n" << r.rewritten;
}

INSTANTIATE_TEST_SUITE_P(Shapes, LoopSiteNames, ::testing::ValuesIn(kCases), case_name);

} // namespace
