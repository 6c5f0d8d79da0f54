// Deny by default (docs/design/dependence-model.md): every shape that once fooled the frontend
// into a parallel plan is serial with its blocker named, and the shapes it understands keep
// their parallel plans. Each case is one small program; the blocker text is checked by substring.
#include "rotor/frontend/Frontend.h"

#include "FrontendTestOptions.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

namespace {

using rotor::analysis::PlanKind;
using rotor::frontend::FileResult;

using rotor::frontend::test::options;

const char* kPrelude = R"(#include "common.h"
#include <array>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <vector>
using Data = rotor::Dataset<Rating>;
using Mat = rotor::DistArray<float, 2>;
using Vec = rotor::DistArray<std::int64_t, 1>;
)";

struct Case {
  const char* name;
  const char* source;  ///< one function with one annotated loop
  const char* blocker; ///< substring of the serial reason; nullptr: a parallel plan is expected
};

const Case kCases[] = {
    // ---- code the analysis (Clang) and the host compiler (g++) may see differently ----
    {"compiler_branch_in_body", R"(
long hits = 0;
void f(Data& d, Mat& W) {
#pragma rotor parallel_for
  for (const Rating& r : d) {
    W(r.user, 0) += 1;
#ifndef __clang__
    ++hits;
#endif
  } })",
     "depends on the compiler"},
    {"compiler_branch_in_helper", R"(
long hits = 0;
inline void bump(Mat& W, int u) {
#if defined(__GNUC__) && !defined(__clang__)
  ++hits;
#endif
  W(u, 0) += 1; }
void f(Data& d, Mat& W) {
#pragma rotor parallel_for
  for (const Rating& r : d) { bump(W, r.user); } })",
     "__GNUC__"},
    {"isa_branch_in_body", R"(
void f(Data& d, Mat& W) {
#pragma rotor parallel_for
  for (const Rating& r : d) {
#ifdef __AVX2__
    W(r.item, 0) += 1;
#else
    W(r.user, 0) += 1;
#endif
  } })",
     "__AVX2__"},
    {"user_macro_branch_stays_parallel", R"(
void f(Data& d, Mat& W) {
#pragma rotor parallel_for
  for (const Rating& r : d) {
#ifndef NDEBUG
    W(r.user, 1) += 1;
#endif
    W(r.user, 0) += 1;
  } })",
     nullptr},
    {"compiler_branch_elsewhere_stays_parallel", R"(
#ifdef __clang__
long unused_hits = 0;
#endif
void f(Data& d, Mat& W) {
#pragma rotor parallel_for
  for (const Rating& r : d) { W(r.user, 0) += 1; } })",
     nullptr},
    // ---- reductions: only an update whose value is thrown away ----
    {"reduction_value_used", R"(
void f(Data& d, Vec& W) {
  std::int64_t cnt = 0;
#pragma rotor parallel_for
  for (const Rating& r : d) {
    const std::int64_t idx = (cnt += 1);
    W(r.user) += idx;
  } })",
     "'cnt'"},
    {"increment_value_used", R"(
void f(Data& d, Vec& W) {
  std::int64_t cnt = 0;
#pragma rotor parallel_for
  for (const Rating& r : d) { W(r.user) += cnt++; } })",
     "'cnt'"},
    {"increment_is_a_reduction", R"(
void f(Data& d, Vec& W) {
  std::int64_t cnt = 0;
  std::int64_t down = 0;
#pragma rotor parallel_for
  for (const Rating& r : d) { ++cnt; down--; W(r.user) += 1; } })",
     nullptr},
    // ---- members reached through `this` ----
    {"member_array_through_this", R"(
struct M { Mat W{{8, 2}}; Mat H{{8, 2}};
  void train(Data& d) {
#pragma rotor parallel_for
    for (const Rating& r : d) { W(r.user, 0) += H(r.item, 0); }
  } };)",
     nullptr},
    {"member_array_both_fields_written", R"(
struct M { Mat W{{8, 2}}; Mat H{{8, 2}};
  void train(Data& d) {
#pragma rotor parallel_for
    for (const Rating& r : d) { W(r.user, 0) += 1; H(r.user, 0) += W(r.item, 1); }
  } };)",
     "W"},
    {"member_scalar", R"(
struct M { Mat W{{8, 2}}; long count = 0;
  void train(Data& d) {
#pragma rotor parallel_for
    for (const Rating& r : d) { W(r.user, 0) += 1; count++; }
  } };)",
     "'count' is declared outside"},
    {"member_raw_pointer", R"(
struct M { float* raw = nullptr;
  void train(Data& d) {
#pragma rotor parallel_for
    for (const Rating& r : d) { raw[r.user] += 1; }
  } };)",
     nullptr}, // a T* table of rows of one element (docs/design/containers.md, "Pointer tables")
    {"member_raw_pointer_conditional", R"(
struct M { float* raw = nullptr;
  void train(Data& d) {
#pragma rotor parallel_for
    for (const Rating& r : d) { if (r.value > 0) { raw[r.user] += 1; } }
  } };)",
     "the extent of 'raw' (a T* table) cannot be bounded"},
    {"member_int_table", R"(
struct M { int** nw = nullptr;
  void train(Data& d) {
#pragma rotor parallel_for
    for (const Rating& r : d) { nw[r.user][r.item]++; }
  } };)",
     "the column of 'nw[r.user][r.item]' has no bound, and no access proves the row length"},
    {"column_loop_breaks", R"(
struct M { int** nw = nullptr; int K = 4;
  void train(Data& d) {
#pragma rotor parallel_for
    for (const Rating& r : d) {
      for (int k = 0; k < K; ++k) { nw[r.user][k] += 1; if (nw[r.user][k] > 9) break; }
    }
  } };)",
     "the extent of 'nw' (a T** table) cannot be bounded"}, // k may stop short of K
    // The type or size of a bound array inside the loop is Rotor's binding's, not the program's.
    {"sizeof_buffered_array", R"(
void f(Data& d) {
  std::array<double, 8> arr{};
  long n = 0;
#pragma rotor parallel_for buffered(arr)
  for (const Rating& r : d) {
    arr[r.user % 8] += r.value;
    n += static_cast<long>(sizeof(arr) / sizeof(arr[0]));
  } })",
     "the loop takes the type or size of 'arr'"},
    {"decltype_staged_table", R"(
struct M { int** nw = nullptr; int K = 4;
  void train(Data& d) {
#pragma rotor parallel_for
    for (const Rating& r : d) {
      for (int k = 0; k < K; ++k) { nw[r.user][k] += std::is_pointer<decltype(nw)>::value; }
    }
  } };)",
     "the loop takes the type or size of 'nw'"},
    {"helper_column_loop_continues", R"(
struct M { int** nw = nullptr; int K = 4;
  void bump(int u) { for (int k = 0; k < K; ++k) { if (k % 2 == 1) continue; nw[u][k] += 1; } }
  void train(Data& d) {
#pragma rotor parallel_for
    for (const Rating& r : d) { bump(r.user); }
  } };)",
     "the extent of 'nw' (a T** table) cannot be bounded"}, // odd columns never touched
    {"helper_through_this", R"(
struct M { std::vector<int> counts;
  void bump(int u) { counts[u] += 1; }
  void train(Data& d) {
#pragma rotor parallel_for
    for (const Rating& r : d) { bump(r.user); }
  } };)",
     // counts[u] is a row vector (analysed, docs/design/containers.md) and the call on the loop's
     // own object is no write to it (finding F3): partitioned by user, checked by running
     // (tests/soundness/programs/member_call_row_vector.cpp)
     nullptr},
    // ---- raw pointers and references ----
    {"raw_pointer_parameter", R"(
void f(Data& d, float* W) {
#pragma rotor parallel_for
  for (const Rating& r : d) { W[r.user] += r.value; }
})",
     nullptr}, // a T* table, viewed in place
    {"raw_pointer_parameter_to_helper", R"(
static void add(float* p, int i, float v) { p[i] += v; }
void f(Data& d, float* W) {
#pragma rotor parallel_for
  for (const Rating& r : d) { add(W, r.user, r.value); }
})",
     "'W' (a T* table) is used other than by subscript"},
    {"pointer_taken_before_the_loop", R"(
void f(Data& d, Mat& A) {
  float* base = &A(0, 0);
#pragma rotor parallel_for
  for (const Rating& r : d) { base[r.item * 2] -= 1; }
})",
     "the extent of 'base' (a T* table) cannot be bounded"},
    {"read_through_outside_pointer", R"(
void f(Data& d, Mat& A, const float* p) {
#pragma rotor parallel_for
  for (const Rating& r : d) { A(r.user, 0) += p[r.item]; }
})",
     "reads through 'p'"},
    {"local_reference_to_outside", R"(
void f(Data& d, Mat& A, std::map<int, int>& v) {
#pragma rotor parallel_for
  for (const Rating& r : d) { int& c = v[r.user]; c += 1; A(r.user, 0) += 1; }
})",
     "'v' is declared outside"},
    {"inner_range_for_over_outside", R"(
void f(Data& d, std::vector<int>& v) {
#pragma rotor parallel_for
  for (const Rating& r : d) { for (int& x : v) { x += r.user; } }
})",
     "'v' (a std::vector) is used other than by subscript"},
    // ---- member functions of the loop's own object (finding F3): a call is no write to the
    // object; the method's own writes are reported by the members' names ----
    {"member_call_writing_member", R"(
struct Sampler {
  int calls = 0;
  int next(int w) { calls += 1; return w + 1; }
  void sweep(Data& d, Mat& A) {
#pragma rotor parallel_for
    for (const Rating& r : d) { A(r.user, 0) += static_cast<float>(next(r.item)); }
  }
};)",
     "'calls' is declared outside the loop and written in it"},
    {"member_call_writing_nothing", R"(
struct Model {
  float scale = 2.0f;
  float predict(float v) { return v * scale; }
  void sweep(Data& d, Mat& A) {
#pragma rotor parallel_for
    for (const Rating& r : d) { A(r.user, 0) += predict(r.value); }
  }
};)",
     nullptr},
    {"member_call_returning_reference", R"(
struct Counter {
  float total = 0;
  float& slot() { return total; }
  void sweep(Data& d, Mat& A) {
#pragma rotor parallel_for
    for (const Rating& r : d) { slot() += r.value; A(r.user, 0) += 1; }
  }
};)",
     "'slot' is declared outside the loop and written in it"},
    // ---- outside RNGs and C library state ----
    {"outside_engine", R"(
void f(Data& d, Mat& A, std::mt19937& rng) {
#pragma rotor parallel_for
  for (const Rating& r : d) { A(r.user, 0) += rng() % 3; }
})",
     "'rng' is declared outside"},
    {"outside_distribution", R"(
void f(Data& d, Mat& A, std::mt19937& rng) {
  std::uniform_real_distribution<float> u;
#pragma rotor parallel_for
  for (const Rating& r : d) { A(r.user, 0) += u(rng); }
})",
     "is declared outside"},
    {"rand", R"(
void f(Data& d, Mat& A) {
#pragma rotor parallel_for
  for (const Rating& r : d) { A(r.user, 0) += std::rand() % 3; }
})",
     "call to 'rand'"},
    {"strtok", R"(
void f(Data& d, Mat& A, char* s) {
#pragma rotor parallel_for
  for (const Rating& r : d) { A(r.user, 0) += std::strtok(nullptr, ",") != nullptr; }
})",
     "call to 'strtok'"},
    // ---- keys changed where the key scan did not look ----
    {"key_written_by_helper", R"(
static void reset(Rating& r) { r.user = 0; }
void f(Data& d, Mat& A) {
#pragma rotor parallel_for
  for (Rating& r : d) { reset(r); A(r.user, 0) += 1; }
})",
     "key field 'user'"},
    {"key_written_through_reference", R"(
void f(Data& d, Mat& A) {
#pragma rotor parallel_for
  for (Rating& r : d) { Rating& q = r; q.user = 0; A(r.user, 0) += 1; }
})",
     "key field 'user'"},
    {"helper_parameter_reassigned", R"(
static void add(Mat& A, int u) { u = 0; A(u, 0) += 1; }
void f(Data& d, Mat& A) {
#pragma rotor parallel_for
  for (const Rating& r : d) { add(A, r.user); }
})",
     "A"},
    {"index_point_written", R"(
void f(rotor::IndexSpace<2>& g, Mat& A) {
#pragma rotor parallel_for
  for (auto [i, j] : g) { i = 0; A(i, 0) += j; }
})",
     "A"},
    {"static_local_key", R"(
void f(Data& d, Mat& A) {
#pragma rotor parallel_for
  for (const Rating& r : d) { static const int u = r.user; A(u, 0) += 1; }
})",
     "static variable 'u'"},
    // ---- integer types ----
    {"narrowing_cast_key", R"(
void f(Data& d, Mat& A) {
#pragma rotor parallel_for
  for (const Rating& r : d) { A(static_cast<std::uint8_t>(r.user), 0) += 1; }
})",
     "A"},
    {"narrow_local_key", R"(
void f(Data& d, Mat& A) {
#pragma rotor parallel_for
  for (const Rating& r : d) { std::int16_t u = r.user; A(u, 0) += 1; }
})",
     "A"},
    {"widening_cast_key", R"(
void f(Data& d, Mat& A) {
#pragma rotor parallel_for
  for (const Rating& r : d) { A(static_cast<std::int64_t>(r.user), 0) += 1; }
})",
     nullptr},
    // ---- hidden state ----
    {"static_in_helper", R"(
static int next() { static int n = 0; return n++; }
void f(Data& d, Mat& A) {
#pragma rotor parallel_for
  for (const Rating& r : d) { A(r.user, 0) += next(); }
})",
     "static variable 'n'"},
    {"mutable_lambda_outside", R"(
void f(Data& d, Mat& A) {
  auto counter = [n = 0]() mutable { return n++; };
#pragma rotor parallel_for
  for (const Rating& r : d) { A(r.user, 0) += counter(); }
})",
     "'counter' is declared outside"},
    {"std_function", R"(
void f(Data& d, Mat& A, std::function<float(int)> g) {
#pragma rotor parallel_for
  for (const Rating& r : d) { A(r.user, 0) += g(r.item); }
})",
     "std::function"},
    {"virtual_call", R"(
struct Base { virtual float step(int) { return 1; } virtual ~Base() = default; };
void f(Data& d, Mat& A, Base& b) {
#pragma rotor parallel_for
  for (const Rating& r : d) { A(r.user, 0) += b.step(r.item); }
})",
     "virtual call"},
    {"user_namespace_rotor", R"(
namespace rotor { namespace user { inline int total = 0; inline int bump() { return ++total; } } }
void f(Data& d, Mat& A) {
#pragma rotor parallel_for
  for (const Rating& r : d) { A(r.user, 0) += rotor::user::bump(); }
})",
     "'total' is declared outside"},
    {"constructor_writes_global", R"(
inline int g_made = 0;
struct Made { int v; explicit Made(int x) : v(x) { ++g_made; } };
void f(Data& d, Mat& A) {
#pragma rotor parallel_for
  for (const Rating& r : d) { Made m(r.item); A(r.user, 0) += m.v; }
})",
     "'g_made' is changed"},
    {"destructor_writes_global", R"(
inline int g_gone = 0;
struct Gone { int v = 1; ~Gone() { g_gone += v; } };
void f(Data& d, Mat& A) {
#pragma rotor parallel_for
  for (const Rating& r : d) { Gone g; A(r.user, 0) += g.v; }
})",
     "g_gone"},
    // ---- writes through const or by-value accessors ----
    {"map_subscript_inserts", R"(
void f(Data& d, Mat& A, std::map<int, int>& seen) {
#pragma rotor parallel_for
  for (const Rating& r : d) { A(r.user, 0) += seen[r.item]; }
})",
     "'seen' is declared outside"},
    {"vector_bool", R"(
void f(Data& d, Mat& A, std::vector<bool>& flags) {
#pragma rotor parallel_for
  for (const Rating& r : d) { flags[r.item] = true; A(r.user, 0) += 1; }
})",
     "'flags' is declared outside"},
    {"shared_ptr", R"(
void f(Data& d, Mat& A, const std::shared_ptr<std::vector<int>>& p) {
#pragma rotor parallel_for
  for (const Rating& r : d) { (*p)[r.item] += 1; A(r.user, 0) += 1; }
})",
     "whose target Rotor cannot tell"},
    {"reference_wrapper", R"(
void f(Data& d, Mat& A, std::reference_wrapper<int> c) {
#pragma rotor parallel_for
  for (const Rating& r : d) { c.get() += 1; A(r.user, 0) += 1; }
})",
     "whose target Rotor cannot tell"},
    // ---- array writes not recorded ----
    {"lambda_returns_element_by_reference", R"(
void f(Data& d, Mat& A) {
#pragma rotor parallel_for
  for (const Rating& r : d) { auto at = [&]() -> float& { return A(0, 0); }; at() += r.value; }
})",
     "A"},
    {"conditional_alias", R"(
void f(Data& d, Mat& W, Mat& H) {
#pragma rotor parallel_for
  for (const Rating& r : d) { auto x = r.value > 0 ? W.row(r.user) : H.row(r.user); x(0) += 1; H(r.item, 1) += W(r.item, 1); }
})",
     "dependence"},
    // ---- reductions touched outside the loop's text ----
    {"reduction_by_outside_lambda", R"(
void f(Data& d, Mat& A) {
  double loss = 0;
  auto add = [&](double x) { loss += x; };
#pragma rotor parallel_for
  for (const Rating& r : d) { A(r.user, 0) += 1; add(r.value); }
})",
     "outside the loop's text"},
    {"reduction_read_by_helper", R"(
static double half(double x) { return x / 2; }
void f(Data& d, Mat& A) {
  double loss = 0;
#pragma rotor parallel_for
  for (const Rating& r : d) { A(r.user, 0) += half(loss); loss += r.value; }
})",
     "also used otherwise"},
    {"accumulator_value_inside", R"(
void f(Data& d, Mat& A) {
  rotor::Accumulator<double> acc;
#pragma rotor parallel_for
  for (const Rating& r : d) { acc += r.value; A(r.user, 0) += acc.value(); }
})",
     "accumulator"},
    {"own_dataset_by_index", R"(
void f(Data& d, Mat& A) {
#pragma rotor parallel_for
  for (const Rating& r : d) { A(r.user, 0) += d[0].value; }
})",
     "own dataset"},
    {"ordered_floating_sum", R"(
void f(rotor::IndexSpace<2>& g, Mat& A) {
  double sum = 0;
#pragma rotor parallel_for ordered
  for (auto [i, j] : g) { if (i > 0) { A(i, j) += A(i - 1, j); } sum += A(i, j); }
})",
     "floating-point sum in an ordered loop"},
    // ---- shapes that stay parallel ----
    {"mf_rows_and_reduction", R"(
double f(Data& d, Mat& W, Mat& H) {
  double loss = 0;
#pragma rotor parallel_for
  for (const Rating& r : d) { auto w = W.row(r.user); auto h = H.row(r.item);
    const float e = r.value - w.dot(h); loss += e * e; w += 0.1f * e * h; h += 0.1f * e * w; }
  return loss;
})",
     nullptr},
    {"local_containers_and_math", R"(
void f(Data& d, Mat& W) {
#pragma rotor parallel_for
  for (const Rating& r : d) { std::vector<float> p(2); std::array<int, 2> q{};
    for (int k = 0; k < 2; ++k) { p[k] = std::exp(W(r.user, k)); q[k] = k; }
    float* first = p.data(); first[1] += 1; W(r.user, 0) = std::max(p[0], p[1]) + q[1]; }
})",
     nullptr},
    {"local_engine_seeded_per_record", R"(
void f(Data& d, Mat& W) {
#pragma rotor parallel_for
  for (const Rating& r : d) { std::mt19937 g(r.user * 31 + r.item); std::uniform_real_distribution<float> u;
    W(r.user, 0) += u(g); }
})",
     nullptr},
    {"local_reference_into_row_vector", R"(
void f(Data& d, Mat& A, std::vector<int>& v) {
#pragma rotor parallel_for
  for (const Rating& r : d) { int& c = v[r.user]; c += 1; A(r.user, 0) += 1; }
})",
     nullptr},
    {"read_only_outside_vector", R"(
void f(Data& d, Mat& W, const std::vector<float>& scale) {
#pragma rotor parallel_for
  for (const Rating& r : d) { W(r.user, 0) += scale[r.item]; }
})",
     nullptr},
};

class DenyByDefault : public ::testing::TestWithParam<Case> {};

TEST_P(DenyByDefault, PlanOrBlocker) {
  const Case& c = GetParam();
  const FileResult r =
      rotor::frontend::process_source(std::string(kPrelude) + c.source, "t.cpp", options());
  ASSERT_TRUE(r.ok) << c.name;
  ASSERT_EQ(r.loops.size(), 1u) << c.name;
  const auto& plan = r.loops[0].plan;
  if (c.blocker == nullptr) {
    EXPECT_NE(plan.kind, PlanKind::serial) << c.name << ": " << plan.reason;
    return;
  }
  EXPECT_EQ(plan.kind, PlanKind::serial) << c.name << " got a parallel plan";
  std::string all = plan.reason;
  for (const auto& e : r.loops[0].model.escapes) {
    all += "\n" + e.what;
  }
  EXPECT_NE(all.find(c.blocker), std::string::npos) << c.name << ": " << all;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return info.param.name;
}

INSTANTIATE_TEST_SUITE_P(Shapes, DenyByDefault, ::testing::ValuesIn(kCases), case_name);

// Finding F3: a call to a member function that writes a member names the member, never the
// function, as a written outside variable.
TEST(DenyByDefaultMessages, MemberCallIsNotAWrittenVariable) {
  const FileResult r = rotor::frontend::process_source(std::string(kPrelude) + R"(
struct Sampler {
  int calls = 0;
  int next(int w) { calls += 1; return w + 1; }
  void sweep(Data& d, Mat& A) {
#pragma rotor parallel_for
    for (const Rating& r : d) { A(r.user, 0) += static_cast<float>(next(r.item)); }
  }
};)",
                                                       "t.cpp", options());
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.loops.size(), 1u);
  EXPECT_EQ(r.loops[0].plan.kind, PlanKind::serial);
  for (const auto& e : r.loops[0].model.escapes) {
    EXPECT_EQ(e.what.find("'next'"), std::string::npos) << e.what;
  }
}

// An extent Rotor cannot bound is filed as a plain-container blocker (not as "a write to an
// outside variable that is not a reduction"), and buffered(x) on a std::map says what x is.
TEST(DenyByDefaultMessages, ContainerCategoryAndBufferedMap) {
  const FileResult r = rotor::frontend::process_source(std::string(kPrelude) + R"(
struct M { float* raw = nullptr;
  void train(Data& d) {
#pragma rotor parallel_for
    for (const Rating& r : d) { if (r.value > 0) { raw[r.user] += 1; } }
  } };
void g(Data& d, Mat& A, std::map<int, double>& weights) {
#pragma rotor parallel_for buffered(weights)
  for (const Rating& r : d) { weights[r.item] += 1; A(r.user, 0) += 1; }
})",
                                                       "t.cpp", options());
  ASSERT_EQ(r.loops.size(), 2u);
  ASSERT_FALSE(r.loops[0].model.escapes.empty());
  EXPECT_EQ(r.loops[0].model.escapes[0].kind, rotor::analysis::Escape::Kind::plain_container);
  EXPECT_NE(r.loops[0].plan.reason.find("a plain container Rotor cannot use as a parameter array"),
            std::string::npos)
      << r.loops[0].plan.reason;
  EXPECT_EQ(r.loops[0].plan.reason.find("not a reduction"), std::string::npos);
  bool said = false;
  for (const auto& diag : r.diagnostics) {
    said = said || diag.message.find("buffered(weights): 'weights' is a std::map, which Rotor "
                                     "cannot buffer") != std::string::npos;
    EXPECT_EQ(diag.message.find("no array named"), std::string::npos) << diag.message;
  }
  EXPECT_TRUE(said);
  EXPECT_EQ(r.loops[1].plan.kind, PlanKind::serial);
}

} // namespace
