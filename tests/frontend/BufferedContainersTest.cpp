// buffered(...) on plain containers (issue 16): which containers may be buffered (and are then
// bound to the worker's buffer in the rewritten body), which stay serial and why, and what the
// suggestions and warnings say.
#include "rotor/analysis/Advice.h"
#include "rotor/frontend/Frontend.h"

#include "FrontendTestOptions.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using rotor::analysis::PlanKind;
using rotor::frontend::FileResult;
using rotor::frontend::test::options;

FileResult lower(const std::string& body) {
  return rotor::frontend::process_source("#include \"common.h\"\n#include <array>\n#include "
                                         "<map>\n#include <vector>\n" +
                                             body,
                                         "t.cpp", options());
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// The `what` of every escape of loop `i`, joined (for messages).
std::string escapes(const FileResult& r, std::size_t i = 0) {
  std::string out;
  for (const auto& e : r.loops.at(i).model.escapes) {
    out += e.what + "\n";
  }
  return out;
}

std::string warnings(const FileResult& r) {
  std::string out;
  for (const auto& d : r.diagnostics) {
    out += d.message + "\n";
  }
  return out;
}

std::string suggestions(const FileResult& r, std::size_t i = 0) {
  std::string out;
  for (const std::string& s :
       rotor::analysis::suggestions(r.loops.at(i).model, r.loops.at(i).plan)) {
    out += s + "\n";
  }
  return out;
}

const char* kLocal = R"(
double f(const std::vector<Feature>& data) {
  std::vector<double> w(8);
  double loss = 0;
#pragma rotor parallel_for buffered(w)
  for (const Feature& e : data) {
    double z = 0;
    for (int j = 0; j < 8; ++j) z += w[j] * e.value;
    loss += z;
    for (int j = 0; j < 8; ++j) w[j] -= 0.1 * (z - e.label) * e.value;
  }
  return loss + w.size();
}
)";

TEST(BufferedContainers, LocalVectorIsDataParallelAndBoundToTheBuffer) {
  FileResult r = lower(kLocal);
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.loops.size(), 1u);
  EXPECT_EQ(r.loops[0].plan.kind, PlanKind::data_parallel) << escapes(r);
  EXPECT_EQ(r.loops[0].model.buffered, (std::vector<std::string>{"w"}));
  EXPECT_TRUE(has(r.rewritten, "auto rotor_view_w = ::rotor::codegen::adopt_rows(w, 1);"));
  EXPECT_TRUE(has(r.rewritten, "const std::size_t rotor_size_w = w.size();"));
  EXPECT_TRUE(has(r.rewritten, "auto& rotor_buffer_w, auto& loss) {"));
  EXPECT_TRUE(has(r.rewritten, "auto w = ::rotor::codegen::buffered_elements(rotor_buffer_w, "
                               "rotor_size_w);"));
}

TEST(BufferedContainers, WithoutTheClauseTheLoopIsSerialAndTheSuggestionNamesIt) {
  std::string code = kLocal;
  code.replace(code.find(" buffered(w)"), 12, "");
  FileResult r = lower(code);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.loops[0].plan.kind, PlanKind::serial);
  const std::string s = suggestions(r);
  EXPECT_TRUE(has(s, "add buffered(w)")) << s;
  EXPECT_FALSE(has(s, "no buffered(...) list makes this loop parallel")) << s;
}

TEST(BufferedContainers, ParameterRowsMemberArrayAndGlobal) {
  FileResult r = lower(R"(
std::array<float, 64> g_bias{};
struct Model {
  std::vector<double> b;
  void fit(rotor::Dataset<Rating>& ratings, std::vector<float>& W, int k) {
#pragma rotor parallel_for buffered(W, b, g_bias)
    for (const Rating& r : ratings) {
      for (int j = 0; j < k; ++j) W[r.user * k + j] += r.value;
      b[r.item % b.size()] += r.value;
      g_bias[r.user % 64] -= 0.1f;
    }
  }
};
)");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.loops[0].plan.kind, PlanKind::data_parallel) << escapes(r);
  // Rows of k where every subscript is a row; rows of one element otherwise.
  EXPECT_TRUE(has(r.rewritten, "::rotor::codegen::adopt_rows(W, static_cast<std::int64_t>(k));"));
  EXPECT_TRUE(has(r.rewritten, "::rotor::codegen::adopt_rows(this->b, 1);"));
  EXPECT_TRUE(has(r.rewritten, "::rotor::codegen::adopt_rows(g_bias, 1);"));
  EXPECT_TRUE(has(r.rewritten, "auto b = ::rotor::codegen::buffered_elements(rotor_buffer_b"));
}

TEST(BufferedContainers, BoundedPointerTable) {
  FileResult r = lower(R"(
void f(rotor::Dataset<Rating>& ratings, float* p) {
#pragma rotor parallel_for buffered(p)
  for (const Rating& r : ratings) {
    for (int j = 0; j < 4; ++j) p[r.user * 4 + j] += r.value * p[r.user * 4 + j];
  }
}
)");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.loops[0].plan.kind, PlanKind::data_parallel) << escapes(r);
  EXPECT_TRUE(has(r.rewritten, "adopt_pointer_rows(p, 4,"));
  EXPECT_TRUE(has(r.rewritten, "auto p = ::rotor::codegen::buffered_elements(rotor_buffer_p"));
}

// A `T*` of per-topic sums used as one array (GibbsLDA++'s `nwsum`): `p[k]` in the column loop
// proves its length K, and the topic index nothing bounds is checked at run time against the
// worker's buffer.
TEST(BufferedContainers, FlatPointerWithCheckedIndex) {
  FileResult r = lower(R"(
struct Sums {
  int* nwsum = nullptr;
  int K = 4;
  void sweep(rotor::Dataset<Token>& tokens) {
#pragma rotor parallel_for buffered(nwsum)
    for (const Token& t : tokens) {
      int s = 0;
      for (int k = 0; k < K; ++k) s += nwsum[k];
      const int old = t.topic % K; // not a key: nothing bounds it before the loop
      nwsum[old] -= 1;
      nwsum[(s + t.doc) % K] += 1;
    }
  }
};
)");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.loops[0].plan.kind, PlanKind::data_parallel) << escapes(r);
  EXPECT_TRUE(has(r.rewritten, "adopt_pointer_rows(this->nwsum, static_cast<std::int64_t>(K), "
                               "{::rotor::codegen::rows_of_constant(0)})"))
      << r.rewritten;
  EXPECT_TRUE(has(r.rewritten, "nwsum[::rotor::codegen::checked_index(nwsum, old, \"t.cpp:"))
      << r.rewritten;
  EXPECT_TRUE(has(r.rewritten, "nwsum[::rotor::codegen::checked_index(nwsum, (s + t.doc) % K, "))
      << r.rewritten;
  ASSERT_EQ(r.loops[0].checked_columns.size(), 2u);
  EXPECT_TRUE(has(r.loops[0].checked_columns[0], "index of 'nwsum[old]'"))
      << r.loops[0].checked_columns[0];
}

// The same shapes without what makes them safe stay serial: no clause (the array is not the
// worker's buffer, so nothing bounds the topic), no column loop proving the length, and an
// array indexed both as one array and by the records' keys.
TEST(BufferedContainers, FlatPointerWithoutProofStaysSerial) {
  const char* unbuffered = R"(
void f(rotor::Dataset<Token>& tokens, int* nwsum, int K) {
#pragma rotor parallel_for
  for (const Token& t : tokens) {
    for (int k = 0; k < K; ++k) nwsum[k] += 0;
    nwsum[t.topic % K] += 1;
  }
}
)";
  const char* no_length = R"(
void f(rotor::Dataset<Token>& tokens, int* nwsum) {
#pragma rotor parallel_for buffered(nwsum)
  for (const Token& t : tokens) {
    nwsum[t.topic % 4] += 1;
  }
}
)";
  const char* mixed = R"(
void f(rotor::Dataset<Token>& tokens, int* nwsum, int K) {
#pragma rotor parallel_for buffered(nwsum)
  for (const Token& t : tokens) {
    for (int k = 0; k < K; ++k) nwsum[k] += 1;
    nwsum[t.doc] += 1;
  }
}
)";
  for (const char* source : {unbuffered, no_length, mixed}) {
    FileResult r = lower(source);
    ASSERT_TRUE(r.ok);
    EXPECT_EQ(r.loops[0].plan.kind, PlanKind::serial) << source;
    EXPECT_TRUE(r.loops[0].checked_columns.empty()) << source;
  }
  EXPECT_TRUE(has(escapes(lower(no_length)),
                  "the index of 'nwsum[t.topic % 4]' has no bound, and no access proves"))
      << escapes(lower(no_length));
  EXPECT_TRUE(has(escapes(lower(mixed)), "indexed both as one array")) << escapes(lower(mixed));
}

// The nearest shapes that must stay serial: the container reached other than by its own name in
// the body (the worker's buffer is only that name), and containers Rotor cannot buffer.
TEST(BufferedContainers, UsedInAHelperStaysSerial) {
  FileResult r = lower(R"(
std::vector<double> g_w(8);
static void step(double g) { for (int j = 0; j < 8; ++j) g_w[j] -= g; }
void f(const std::vector<Feature>& data) {
#pragma rotor parallel_for buffered(g_w)
  for (const Feature& e : data) {
    g_w[0] += e.value;
    step(e.label);
  }
}
)");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.loops[0].plan.kind, PlanKind::serial);
  EXPECT_TRUE(has(escapes(r), "buffered(g_w): 'g_w' is used in 'step', which the loop calls"))
      << escapes(r);
  EXPECT_FALSE(has(r.rewritten, "rotor_buffer_g_w"));
}

TEST(BufferedContainers, PassedByReferenceToAHelperStaysSerial) {
  FileResult r = lower(R"(
static void step(std::vector<double>& v, double g) { for (int j = 0; j < 8; ++j) v[j] -= g; }
void f(const std::vector<Feature>& data, std::vector<double>& w) {
#pragma rotor parallel_for buffered(w)
  for (const Feature& e : data) {
    step(w, e.label);
  }
}
)");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.loops[0].plan.kind, PlanKind::serial);
  EXPECT_TRUE(has(escapes(r), "buffered(w): 'w' is used in 'step'")) << escapes(r);
}

TEST(BufferedContainers, ExplicitThisAndAliasStaySerial) {
  FileResult r = lower(R"(
struct Model {
  std::vector<double> b = std::vector<double>(8);
  void fit(const std::vector<Feature>& data) {
#pragma rotor parallel_for buffered(b)
    for (const Feature& e : data) {
      this->b[0] += e.value;
    }
  }
};
void g(const std::vector<Feature>& data, std::vector<double>& w) {
  std::vector<double>& v = w;
#pragma rotor parallel_for buffered(w)
  for (const Feature& e : data) {
    w[1] += e.value;
    v[0] += e.value;
  }
}
)");
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.loops.size(), 2u);
  EXPECT_EQ(r.loops[0].plan.kind, PlanKind::serial);
  EXPECT_TRUE(has(escapes(r, 0), "'b' is used through an explicit object (this->b)"))
      << escapes(r, 0);
  EXPECT_EQ(r.loops[1].plan.kind, PlanKind::serial);
}

TEST(BufferedContainers, TablesAndEigenCannotBeBufferedAndAreNotSuggested) {
  FileResult r = lower(R"(
void f(rotor::Dataset<Rating>& ratings, std::vector<std::vector<float>>& t) {
#pragma rotor parallel_for buffered(t)
  for (const Rating& r : ratings) {
    t[r.user % 3][0] += r.value;
  }
}
void g(rotor::Dataset<Rating>& ratings, std::vector<std::vector<float>>& t) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    t[r.user % 3][0] += r.value;
  }
}
)");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.loops[0].plan.kind, PlanKind::serial);
  EXPECT_TRUE(has(escapes(r, 0), "buffered(t): 't' is a std::vector<std::vector>, which Rotor "
                                 "cannot buffer"))
      << escapes(r, 0);
  EXPECT_FALSE(has(suggestions(r, 1), "add buffered(t)")) << suggestions(r, 1);
}

TEST(BufferedContainers, MapScalarAndReadOnlyNamesAreExplained) {
  FileResult r = lower(R"(
double mu = 0;
void f(const std::vector<Feature>& data, std::map<int, double>& weights,
       const std::vector<double>& x, std::vector<double>& w) {
#pragma rotor parallel_for buffered(weights, mu, x)
  for (const Feature& e : data) {
    weights[e.feature] += e.value;
    mu += e.value * x[0];
    w[0] += mu;
  }
}
)");
  ASSERT_TRUE(r.ok);
  const std::string w = warnings(r);
  EXPECT_TRUE(has(w, "buffered(weights): 'weights' is a std::map, which Rotor cannot buffer")) << w;
  EXPECT_TRUE(has(w, "buffered(mu): 'mu' is a scalar (double), which Rotor cannot buffer")) << w;
  EXPECT_TRUE(has(w, "buffered(x): the loop does not write 'x'")) << w;
  EXPECT_EQ(r.loops[0].plan.kind, PlanKind::serial);
}

// k-means' update step: sums per cluster in a std::vector of structs.
TEST(BufferedContainers, VectorOfRecordsIsExplained) {
  FileResult r = lower(R"(
struct Point { float x{0}, y{0}; };
void sums(const std::vector<Point>& data, const std::vector<int>& assignments, int k) {
  std::vector<Point> new_means(k);
#pragma rotor parallel_for buffered(new_means)
  for (size_t point = 0; point < data.size(); ++point) {
    new_means[assignments[point]].x += data[point].x;
  }
}
)");
  ASSERT_TRUE(r.ok);
  const std::string w = warnings(r);
  EXPECT_TRUE(has(w, "buffered(new_means): 'new_means' (a std::vector<Point>) holds records, "
                     "which Rotor cannot buffer"))
      << w;
  EXPECT_EQ(r.loops[0].plan.kind, PlanKind::serial);
}

} // namespace
