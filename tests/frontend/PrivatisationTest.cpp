// Per-worker copies (issue 16, item 3; frontend/src/Privatisation.h): the scratch-buffer shapes
// rotor-cc privatises by itself, the traps that must keep today's serial plan, and private(x).
#include "rotor/frontend/Frontend.h"

#include "FrontendTestOptions.h"

#include <gtest/gtest.h>

#include <string>

namespace {

using rotor::analysis::PlanKind;
using rotor::frontend::FileResult;
using rotor::frontend::test::options;

const char* kPrelude = R"(#include "common.h"
#include <array>
#include <random>
#include <vector>
using Data = rotor::Dataset<Rating>;
using Mat = rotor::DistArray<float, 2>;
)";

struct Case {
  const char* name;
  const char* source;   ///< one function with one annotated loop
  const char* privates; ///< "p:scratch,rng:clause" expected; "" when none may be privatised
  bool parallel;        ///< a parallel plan is expected
};

const Case kCases[] = {
    // ---- accepted: the buffer is written whole before anything reads it ----
    {"vector_filled_to_size", R"(
void f(Data& d, Mat& W) {
  std::vector<double> p(8);
#pragma rotor parallel_for
  for (const Rating& r : d) {
    for (int k = 0; k < static_cast<int>(p.size()); ++k) { p[k] = W(r.user, 0) * k; }
    for (int k = 1; k < 8; ++k) { p[k] += p[k - 1]; }
    W(r.user, 1) = static_cast<float>(p[7]);
  } })",
     "p:scratch", true},
    {"vector_filled_to_declared_const", R"(
void f(Data& d, Mat& W) {
  const int K = 4;
  std::vector<double> p(K);
#pragma rotor parallel_for
  for (const Rating& r : d) {
    for (int k = 0; k < K; ++k) {
      const double x = W(r.user, k) + 1.0;
      p[k] = x * x;
      W(r.user, k) = static_cast<float>(p[k]);
    }
  } })",
     "p:scratch", true},
    {"c_array", R"(
void f(Data& d, Mat& W) {
  double p[4];
#pragma rotor parallel_for
  for (const Rating& r : d) {
    for (int k = 0; k < 4; k++) { p[k] = r.value * k; }
    W(r.user, 0) = static_cast<float>(p[3] + p[1]);
  } })",
     "p:scratch", true},
    {"std_array", R"(
void f(Data& d, Mat& W) {
  std::array<float, 3> p;
#pragma rotor parallel_for
  for (const Rating& r : d) {
    for (int k = 0; k < 3; ++k) { p[k] = W(r.item, k); }
    W(r.user, 0) = p[0] + p[2];
  } })",
     "p:scratch", false /* W is read at item and written at user: not a scratch question */},
    // ---- traps: today's serial plan and its reason stay ----
    {"read_before_write", R"(
void f(Data& d, Mat& W) {
  double p[4] = {};
#pragma rotor parallel_for
  for (const Rating& r : d) {
    W(r.user, 0) = static_cast<float>(p[2]);
    for (int k = 0; k < 4; ++k) { p[k] = r.value; }
  } })",
     "", false},
    {"part_of_the_buffer", R"(
void f(Data& d, Mat& W) {
  double p[4];
#pragma rotor parallel_for
  for (const Rating& r : d) {
    for (int k = 0; k < 3; ++k) { p[k] = r.value; }
    W(r.user, 0) = static_cast<float>(p[3]);
  } })",
     "", false},
    {"starts_at_one", R"(
void f(Data& d, Mat& W) {
  std::vector<double> p(4);
#pragma rotor parallel_for
  for (const Rating& r : d) {
    for (int k = 1; k < static_cast<int>(p.size()); ++k) { p[k] = r.value; }
    W(r.user, 0) = static_cast<float>(p[0]);
  } })",
     "", false},
    {"conditional_write", R"(
void f(Data& d, Mat& W) {
  double p[4];
#pragma rotor parallel_for
  for (const Rating& r : d) {
    for (int k = 0; k < 4; ++k) {
      if (r.value > 1) { p[k] = r.value; }
    }
    W(r.user, 0) = static_cast<float>(p[3]);
  } })",
     "", false},
    {"conditional_fill_loop", R"(
void f(Data& d, Mat& W) {
  double p[4];
#pragma rotor parallel_for
  for (const Rating& r : d) {
    if (r.value > 1) {
      for (int k = 0; k < 4; ++k) { p[k] = r.value; }
    }
    W(r.user, 0) = static_cast<float>(p[3]);
  } })",
     "", false},
    {"reads_ahead_in_fill", R"(
void f(Data& d, Mat& W) {
  double p[4] = {};
#pragma rotor parallel_for
  for (const Rating& r : d) {
    for (int k = 0; k < 3; ++k) { p[k] = r.value; W(r.user, 0) = static_cast<float>(p[k + 1]); }
  } })",
     "", false},
    {"escapes_by_pointer", R"(
double* leak = nullptr;
void f(Data& d, Mat& W) {
  std::vector<double> p(4);
#pragma rotor parallel_for
  for (const Rating& r : d) {
    for (int k = 0; k < static_cast<int>(p.size()); ++k) { p[k] = r.value; }
    double* q = p.data();
    W(r.user, 0) = static_cast<float>(q[1]);
  } })",
     "", false},
    {"filled_by_helper", R"(
inline void fill(std::vector<double>& p, float v) { for (double& x : p) { x = v; } }
void f(Data& d, Mat& W) {
  std::vector<double> p(4);
#pragma rotor parallel_for
  for (const Rating& r : d) {
    fill(p, r.value);
    W(r.user, 0) = static_cast<float>(p[1]);
  } })",
     "", false},
    {"resized_before_the_loop", R"(
void f(Data& d, Mat& W) {
  const int K = 4;
  std::vector<double> p(K);
  p.resize(8);
#pragma rotor parallel_for
  for (const Rating& r : d) {
    for (int k = 0; k < K; ++k) { p[k] = r.value; }
    W(r.user, 0) = static_cast<float>(p[7]);
  } })",
     "", false},
    {"reference_parameter", R"(
void f(Data& d, Mat& W, double (&p)[4]) {
#pragma rotor parallel_for
  for (const Rating& r : d) {
    for (int k = 0; k < 4; ++k) { p[k] = r.value; }
    W(r.user, 0) = static_cast<float>(p[3]);
  } })",
     "", false},
    {"read_after_the_loop", R"(
double f(Data& d, Mat& W) {
  double p[4];
#pragma rotor parallel_for
  for (const Rating& r : d) {
    for (int k = 0; k < 4; ++k) { p[k] = r.value; }
    W(r.user, 0) = static_cast<float>(p[3]);
  }
  return p[0]; })",
     "", false},
    {"read_before_the_loop_in_an_outer_loop", R"(
void f(Data& d, Mat& W) {
  double p[4] = {};
  for (int it = 0; it < 2; ++it) {
    W(0, 1) = static_cast<float>(p[0]);
#pragma rotor parallel_for
    for (const Rating& r : d) {
      for (int k = 0; k < 4; ++k) { p[k] = r.value; }
      W(r.user, 0) = static_cast<float>(p[3]);
    }
  } })",
     "", false},
    // ---- scalar temporaries: assigned before any read in every iteration ----
    {"scalar_temporaries", R"(
double f(Data& d, Mat& W, Mat& H) {
  int u_id, i_id;
  double error;
  double sse = 0;
#pragma rotor parallel_for
  for (const Rating& r : d) {
    u_id = r.user;
    i_id = r.item;
    error = r.value - W(u_id, 0) * H(i_id, 1);
    sse += error * error;
    W(u_id, 0) += 0.01f * static_cast<float>(error);
  }
  return sse; })",
     "u_id:scratch,i_id:scratch,error:scratch", true},
    {"scalar_assigned_in_inner_loop", R"(
void f(Data& d, Mat& W) {
  float correction;
  int k;
#pragma rotor parallel_for
  for (const Rating& r : d) {
    for (int j = 0; j < 4; ++j) {
      k = j;
      correction = 0.01f * r.value * W(r.user, k);
      W(r.user, k) += correction;
    }
  } })",
     "k:scratch,correction:scratch", true},
    {"scalar_in_one_branch_only", R"(
void f(Data& d, Mat& W) {
  float g;
#pragma rotor parallel_for
  for (const Rating& r : d) {
    if (r.value > 2) {
      g = r.value * 0.5f;
      W(r.user, 0) += g;
    } else {
      W(r.user, 1) += 1.0f;
    }
  } })",
     "g:scratch", true},
    {"scalar_named_in_private_clause", R"(
void f(Data& d, Mat& W) {
  int u;
#pragma rotor parallel_for private(u)
  for (const Rating& r : d) {
    u = r.user;
    W(u, 0) += r.value;
  } })",
     "u:scratch", true},
    {"scalar_written_twice_is_no_alias", R"(
void f(Data& d, Mat& W) {
  int u;
#pragma rotor parallel_for
  for (const Rating& r : d) {
    u = r.user;
    u = u + 0;
    W(u, 0) += r.value;
  } })",
     "u:scratch", false /* private, but 'u' is no longer the key: the subscript is unknown */},
    {"scalar_read_before_written", R"(
void f(Data& d, Mat& W) {
  int u = 0;
#pragma rotor parallel_for
  for (const Rating& r : d) {
    W(u, 0) += r.value;
    u = r.user;
  } })",
     "", false},
    {"scalar_written_conditionally_then_read", R"(
void f(Data& d, Mat& W) {
  int u = 0;
#pragma rotor parallel_for
  for (const Rating& r : d) {
    if (r.value > 2) { u = r.user; }
    W(u, 0) += r.value;
  } })",
     "", false},
    {"scalar_assigned_in_loop_read_after_it", R"(
void f(Data& d, Mat& W) {
  int u = 0;
#pragma rotor parallel_for
  for (const Rating& r : d) {
    for (int j = 0; j < r.user; ++j) { u = j; }
    W(u, 0) += r.value;
  } })",
     "", false},
    {"scalar_address_taken", R"(
void f(Data& d, Mat& W) {
  int u;
#pragma rotor parallel_for
  for (const Rating& r : d) {
    u = r.user;
    int* pu = &u;
    W(*pu, 0) += r.value;
  } })",
     "", false},
    {"scalar_bound_to_reference", R"(
void f(Data& d, Mat& W) {
  int u;
#pragma rotor parallel_for
  for (const Rating& r : d) {
    u = r.user;
    int& ru = u;
    ru = 0;
    W(u, 0) += r.value;
  } })",
     "", false},
    {"scalar_reads_itself_in_definition", R"(
void f(Data& d, Mat& W) {
  int u = 0;
#pragma rotor parallel_for
  for (const Rating& r : d) {
    u = u + r.user;
    W(r.user, 0) += static_cast<float>(u);
  } })",
     "", false},
    {"scalar_read_after_the_loop", R"(
int f(Data& d, Mat& W) {
  int u = 0;
#pragma rotor parallel_for
  for (const Rating& r : d) {
    u = r.user;
    W(u, 0) += r.value;
  }
  return u; })",
     "", false},
    {"scalar_do_condition_after_continue", R"(
void f(Data& d, Mat& W) {
  int t = 0;
#pragma rotor parallel_for
  for (const Rating& r : d) {
    do {
      if (r.value > 2) { continue; }
      t = r.user;
      W(r.user, 0) += 1.0f;
    } while (t < 0);
  } })",
     "", false},
    // ---- private(x): the user accepts per-worker state ----
    {"private_generator", R"(
void f(Data& d, Mat& W) {
  std::mt19937 rng(7);
#pragma rotor parallel_for private(rng)
  for (const Rating& r : d) {
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    W(r.user, 0) += u(rng);
  } })",
     "rng:clause", true},
    {"generator_without_clause", R"(
void f(Data& d, Mat& W) {
  std::mt19937 rng(7);
#pragma rotor parallel_for
  for (const Rating& r : d) {
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    W(r.user, 0) += u(rng);
  } })",
     "", false},
    {"private_used_in_helper_outside_the_loop", R"(
std::mt19937 rng(7);
inline float draw() { return static_cast<float>(rng() % 7); }
void f(Data& d, Mat& W) {
#pragma rotor parallel_for private(rng)
  for (const Rating& r : d) {
    W(r.user, 0) += draw() + static_cast<float>(rng() % 3);
  } })",
     "rng:clause", false},
};

class Privatisation : public ::testing::TestWithParam<Case> {};

TEST_P(Privatisation, CopiesAndPlan) {
  const Case& c = GetParam();
  const FileResult r =
      rotor::frontend::process_source(std::string(kPrelude) + c.source, "t.cpp", options());
  ASSERT_TRUE(r.ok) << c.name;
  ASSERT_EQ(r.loops.size(), 1u) << c.name;
  std::string privates;
  for (const auto& v : r.loops[0].model.privates) {
    privates += (privates.empty() ? "" : ",") + v.name + (v.from_clause ? ":clause" : ":scratch");
  }
  EXPECT_EQ(privates, c.privates) << c.name;
  const auto& plan = r.loops[0].plan;
  if (c.parallel) {
    EXPECT_NE(plan.kind, PlanKind::serial) << c.name << ": " << plan.reason;
  } else {
    EXPECT_EQ(plan.kind, PlanKind::serial) << c.name << " got a parallel plan";
  }
  const bool clause = privates.find(":clause") != std::string::npos;
  EXPECT_EQ(r.loops[0].model.serial_equivalent(), !clause) << c.name;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return info.param.name;
}

INSTANTIATE_TEST_SUITE_P(Shapes, Privatisation, ::testing::ValuesIn(kCases), case_name);

TEST(PrivateClause, UnknownNameIsAnError) {
  const FileResult r = rotor::frontend::process_source(std::string(kPrelude) + R"(
void f(Data& d, Mat& W) {
#pragma rotor parallel_for private(nothing_here)
  for (const Rating& r : d) { W(r.user, 0) += 1; } })",
                                                       "t.cpp", options());
  EXPECT_FALSE(r.ok);
  bool named = false;
  for (const auto& diag : r.diagnostics) {
    named = named || diag.message.find("private(nothing_here)") != std::string::npos;
  }
  EXPECT_TRUE(named);
}

// private(random) / private(rand): libc's generators per worker. The calls in the body and in a
// helper it calls are rewritten to the runtime's worker_random / worker_rand (libc outside such a
// loop); a call the clause does not name, or srandom(), still blocks.
TEST(PrivateClause, LibcGenerators) {
  const FileResult r = rotor::frontend::process_source(std::string(kPrelude) + R"(
#include <cstdlib>
static long noise() { return random() % 7; }
void f(Data& d, Mat& W) {
#pragma rotor parallel_for private(random, rand)
  for (const Rating& r : d) { W(r.user, 0) += noise() + std::rand() % 3 + random() % 5; } }
void g(Data& d, Mat& W) {
#pragma rotor parallel_for
  for (const Rating& r : d) { W(r.user, 0) += noise(); } }
void h(Data& d, Mat& W) {
#pragma rotor parallel_for private(rand)
  for (const Rating& r : d) { W(r.user, 0) += random() % 5; } }
void k(Data& d, Mat& W) {
#pragma rotor parallel_for private(random)
  for (const Rating& r : d) { W(r.user, 0) += random() % 5; srandom(3); } }
)",
                                                       "t.cpp", options());
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.loops.size(), 4u);
  EXPECT_NE(r.loops[0].plan.kind, PlanKind::serial) << r.loops[0].plan.reason;
  EXPECT_FALSE(r.loops[0].model.serial_equivalent());
  ASSERT_EQ(r.loops[0].model.privates.size(), 2u);
  EXPECT_TRUE(r.loops[0].model.privates[0].libc);
  for (std::size_t i = 1; i < 4; ++i) {
    EXPECT_EQ(r.loops[i].plan.kind, PlanKind::serial) << i;
  }
  EXPECT_NE(r.loops[1].plan.reason.find("call to 'random'"), std::string::npos);
  EXPECT_NE(r.loops[2].plan.reason.find("call to 'random'"), std::string::npos);
  EXPECT_NE(r.loops[3].plan.reason.find("call to 'srandom'"), std::string::npos);
  const std::string& out = r.rewritten;
  EXPECT_NE(out.find("static long noise() { return ::rotor::codegen::worker_random() % 7; }"),
            std::string::npos);
  EXPECT_NE(out.find("::rotor::codegen::worker_rand() % 3 + ::rotor::codegen::worker_random() % 5"),
            std::string::npos);
  EXPECT_NE(out.find("::rotor::codegen::LibcPrivate rotor_private_libc_random("
                     "::rotor::codegen::LibcPrivate::random_k);"),
            std::string::npos);
  EXPECT_NE(out.find("/*private_state*/ {\"random\", \"rand\"}"), std::string::npos);
}

// private(p) on a `T*` member (docs/design/containers.md, "Private pointer arrays"): filled by
// a member helper in a column loop, its other indexes checked, the helper cloned after the
// worker's copy; the shapes without what makes that sound stay serial, naming private(p).
TEST(PrivateClause, PrivateMemberPointerArray) {
  const FileResult r = rotor::frontend::process_source(std::string(kPrelude) + R"(
struct S {
  int K = 4;
  double* p = nullptr;
  double q = 0;
  double fill(const Rating& r) {
    for (int k = 0; k < K; ++k) { p[k] = r.value * k; }
    for (int k = 1; k < K; ++k) { p[k] += p[k - 1]; }
    return p[K - 1];
  }
  double fill_this(const Rating& r) {
    for (int k = 0; k < K; ++k) { this->p[k] = r.value; }
    return p[0];
  }
  double no_length(const Rating& r) { p[r.user % 4] = 1; return p[0]; }
  void a(Data& d, Mat& W) {
#pragma rotor parallel_for private(p)
    for (const Rating& r : d) { W(r.user, 0) += fill(r); } }
  void b(Data& d, Mat& W) {
#pragma rotor parallel_for private(p)
    for (const Rating& r : d) { W(r.user, 0) += fill_this(r); } }
  void c(Data& d, Mat& W) {
#pragma rotor parallel_for private(p)
    for (const Rating& r : d) { W(r.user, 0) += no_length(r); } }
};
)",
                                                       "t.cpp", options());
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.loops.size(), 3u);
  EXPECT_NE(r.loops[0].plan.kind, PlanKind::serial) << r.loops[0].plan.reason;
  EXPECT_FALSE(r.loops[0].model.serial_equivalent());
  const std::string& out = r.rewritten;
  EXPECT_NE(out.find("::rotor::codegen::PrivateArray<std::remove_pointer_t<decltype(this->p)>> "
                     "rotor_private_p(this->p, static_cast<std::int64_t>(K));"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("auto p = rotor_private_p.local();"), std::string::npos) << out;
  EXPECT_NE(out.find("auto fill = [&](const Rating& r) -> double"), std::string::npos) << out;
  EXPECT_NE(out.find("p[::rotor::codegen::checked_index(p, K - 1, "), std::string::npos) << out;
  EXPECT_EQ(r.loops[1].plan.kind, PlanKind::serial);
  EXPECT_NE(r.loops[1].plan.reason.find("private(p): 'p' is used"), std::string::npos)
      << r.loops[1].plan.reason;
  EXPECT_EQ(r.loops[2].plan.kind, PlanKind::serial);
  EXPECT_NE(r.loops[2].plan.reason.find("private(p)"), std::string::npos) << r.loops[2].plan.reason;
  const FileResult e = rotor::frontend::process_source(std::string(kPrelude) + R"(
struct S {
  double q = 0;
  void e(Data& d, Mat& W) {
#pragma rotor parallel_for private(q)
    for (const Rating& r : d) { W(r.user, 0) += q; } }
};
)",
                                                       "t.cpp", options());
  EXPECT_FALSE(e.ok);
  bool named = false; // a member that is no T*: an error, as an unknown name
  for (const auto& diag : e.diagnostics) {
    named = named || diag.message.find("private(q)") != std::string::npos;
  }
  EXPECT_TRUE(named);
}

// An index that is a loop counter below the proven length (`p[k]`, `p[k - 1]` in `for (k = 1;
// k < K; ++k)`) is inside the worker's copy and needs no run-time check; a counter that may
// reach -1 or K, a bound that is not the length, or a counter the loop changes stays checked.
TEST(PrivateClause, CounterIndexesInsideTheLengthAreNotChecked) {
  const FileResult r = rotor::frontend::process_source(std::string(kPrelude) + R"(
struct S {
  int K = 4;
  double* p = nullptr;
  double fill(const Rating& r) {
    double acc = 0;
    for (int k = 0; k < K; ++k) { p[k] = r.value * k; }
    for (int k = 1; k < K; ++k) { p[k] += p[k - 1]; }
    for (int j = 0; j < K; ++j) { acc += p[j - 1]; }
    for (int i = 1; i < K + 1; ++i) { acc += p[i]; }
    for (int h = 1; h < K; ++h) { acc += p[h]; h += 0; }
    return acc;
  }
  void a(Data& d, Mat& W) {
#pragma rotor parallel_for private(p)
    for (const Rating& r : d) { W(r.user, 0) += fill(r); } }
};
)",
                                                       "t.cpp", options());
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.loops.size(), 1u);
  EXPECT_NE(r.loops[0].plan.kind, PlanKind::serial) << r.loops[0].plan.reason;
  const std::string& out = r.rewritten;
  EXPECT_NE(out.find("{ p[k] += p[k - 1]; }"), std::string::npos) << out;
  EXPECT_NE(out.find("p[::rotor::codegen::checked_index(p, j - 1, "), std::string::npos) << out;
  EXPECT_NE(out.find("p[::rotor::codegen::checked_index(p, i, "), std::string::npos) << out;
  EXPECT_NE(out.find("p[::rotor::codegen::checked_index(p, h, "), std::string::npos) << out;
}

} // namespace

// --explain describes each per-worker copy as what it is: a generator is re-seeded per worker,
// a plain value named in private(...) is carried from record to record (no generator wording),
// a scalar temporary is a per-iteration temporary.
TEST(PrivateClause, NotesDescribeTheVariable) {
  const FileResult r = rotor::frontend::process_source(std::string(kPrelude) + R"(
void f(Data& d, Mat& W) {
  std::mt19937 rng(7);
  int carried = 0;
  int u;
#pragma rotor parallel_for private(rng, carried)
  for (const Rating& r : d) {
    u = r.user;
    carried = carried + 1;
    W(u, 0) += static_cast<float>(rng() % 3 + carried);
  } })",
                                                       "t.cpp", options());
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.loops.size(), 1u);
  std::string rng_note, carried_note, u_note;
  for (const std::string& n : r.loops[0].plan.notes) {
    if (n.rfind("'rng'", 0) == 0) {
      rng_note = n;
    } else if (n.rfind("'carried'", 0) == 0) {
      carried_note = n;
    } else if (n.rfind("'u'", 0) == 0) {
      u_note = n;
    }
  }
  EXPECT_NE(rng_note.find("re-seeded per worker"), std::string::npos) << rng_note;
  EXPECT_NE(carried_note.find("carries it from record to record"), std::string::npos);
  EXPECT_EQ(carried_note.find("generator"), std::string::npos) << carried_note;
  EXPECT_EQ(carried_note.find("seed"), std::string::npos) << carried_note;
  EXPECT_NE(u_note.find("per-iteration temporary"), std::string::npos) << u_note;
}
