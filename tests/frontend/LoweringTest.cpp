// Lowering of annotated loops (Clang AST -> analysis::LoopModel), checked field by field.
#include "rotor/frontend/Frontend.h"

#include "FrontendTestOptions.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

namespace {

using rotor::analysis::Escape;
using rotor::analysis::Subscript;
using rotor::frontend::FileResult;

using rotor::frontend::test::options;

FileResult lower(const std::string& body) {
  return rotor::frontend::process_source("#include \"common.h\"\n" + body, "t.cpp", options());
}

const char* kMf = R"(
double f(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 2>& W,
         rotor::DistArray<float, 2>& H, float lr) {
  double loss = 0;
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    auto w = W.row(r.user);
    auto h = H.row(r.item);
    float e = r.value - w.dot(h);
    loss += e * e;
    w += lr * e * h;
  }
  return loss;
}
)";

TEST(Lowering, MatrixFactorization) {
  FileResult r = lower(kMf);
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.loops.size(), 1u);
  const auto& m = r.loops[0].model;
  EXPECT_EQ(m.loc.line, 7);
  EXPECT_EQ(m.fields, (std::vector<std::string>{"user", "item"}));
  ASSERT_EQ(m.arrays.size(), 2u);
  EXPECT_EQ(m.arrays[0].name, "W");
  EXPECT_EQ(m.arrays[0].rank, 2);
  EXPECT_EQ(m.arrays[0].element, "float");
  ASSERT_EQ(m.accesses.size(), 2u);
  EXPECT_EQ(m.accesses[0].array, "W");
  EXPECT_TRUE(m.accesses[0].write); // through w +=
  EXPECT_EQ(m.accesses[0].subscripts[0].kind, Subscript::Kind::key);
  EXPECT_EQ(m.accesses[0].subscripts[0].field, 0);
  EXPECT_EQ(m.accesses[0].subscripts[1].kind, Subscript::Kind::whole);
  EXPECT_EQ(m.accesses[1].array, "H");
  EXPECT_FALSE(m.accesses[1].write); // h is only read
  EXPECT_EQ(m.accesses[1].subscripts[0].field, 1);
  ASSERT_EQ(m.reductions.size(), 1u);
  EXPECT_EQ(m.reductions[0].name, "loss");
  EXPECT_TRUE(m.escapes.empty());
  EXPECT_TRUE(r.changed);
  EXPECT_NE(r.rewritten.find("::rotor::codegen::run_loop("), std::string::npos);
  EXPECT_NE(r.rewritten.find("[&, lr](const Rating& r, auto& W, auto& H, auto& loss) {"),
            std::string::npos);
  EXPECT_NE(r.rewritten.find("#line 8 \"t.cpp\""), std::string::npos);
  EXPECT_NE(r.rewritten.find("#line 14 \"t.cpp\""), std::string::npos);
}

TEST(Lowering, AliasesOfSubscriptsAndArrays) {
  FileResult r = lower(R"(
void f(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 2>& W) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    const int u = r.user;
    auto& M = W;
    float x = M(u, 0);
    M(u + 1, 1) = x;
  }
}
)");
  ASSERT_TRUE(r.ok);
  const auto& m = r.loops[0].model;
  ASSERT_EQ(m.accesses.size(), 2u);
  EXPECT_EQ(m.accesses[0].array, "W");
  EXPECT_FALSE(m.accesses[0].write);
  EXPECT_EQ(m.accesses[0].subscripts[0].kind, Subscript::Kind::key);
  EXPECT_EQ(m.accesses[0].subscripts[1].kind, Subscript::Kind::constant);
  EXPECT_TRUE(m.accesses[1].write);
  EXPECT_EQ(m.accesses[1].subscripts[0].offset.value, 1);
  EXPECT_EQ(m.accesses[1].subscripts[1].offset.value, 1);
}

TEST(Lowering, InnerLoopIndexIsWholeAndSymbolicOffsets) {
  FileResult r = lower(R"(
void f(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 2>& W, int k, int shift) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    for (int c = 0; c < k; ++c) {
      W(r.item - shift, c) += 1.0f;
    }
  }
}
)");
  ASSERT_TRUE(r.ok);
  const auto& a = r.loops[0].model.accesses.at(0);
  EXPECT_EQ(a.subscripts[0].kind, Subscript::Kind::key);
  EXPECT_EQ(a.subscripts[0].field, 1);
  EXPECT_EQ(a.subscripts[0].offset.symbol, "-shift");
  EXPECT_EQ(a.subscripts[1].kind, Subscript::Kind::whole);
  EXPECT_TRUE(a.write);
}

TEST(Lowering, UnknownSubscripts) {
  FileResult r = lower(R"(
void f(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 1>& A,
       rotor::DistArray<std::int32_t, 1>& perm) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    A[r.user % 8] += 1.0f;
    A[perm[r.item]] += 1.0f;
    A[static_cast<int>(r.value)] += 1.0f;
  }
}
)");
  ASSERT_TRUE(r.ok);
  const auto& m = r.loops[0].model;
  ASSERT_EQ(m.accesses.size(), 4u);
  EXPECT_EQ(m.accesses[0].subscripts[0].kind, Subscript::Kind::unknown);
  EXPECT_EQ(m.accesses[0].subscripts[0].text, "r.user % 8");
  EXPECT_EQ(m.accesses[1].subscripts[0].kind, Subscript::Kind::unknown); // A[perm[...]]
  EXPECT_EQ(m.accesses[2].array, "perm");
  EXPECT_FALSE(m.accesses[2].write);
  EXPECT_EQ(m.accesses[3].subscripts[0].kind, Subscript::Kind::unknown);
}

TEST(Lowering, RecordWritesAreNotKeys) {
  FileResult r = lower(R"(
void f(rotor::Dataset<Token>& tokens, rotor::DistArray<std::int32_t, 1>& nk) {
#pragma rotor parallel_for ordered buffered(nk)
  for (Token& t : tokens) {
    nk[t.topic] += 1;
    t.topic = t.word % 3;
  }
}
)");
  ASSERT_TRUE(r.ok);
  const auto& m = r.loops[0].model;
  EXPECT_EQ(m.fields, (std::vector<std::string>{"doc", "word"}));
  EXPECT_TRUE(m.ordered);
  EXPECT_EQ(m.buffered, (std::vector<std::string>{"nk"}));
  EXPECT_EQ(m.accesses.at(0).subscripts[0].kind, Subscript::Kind::unknown);
  EXPECT_NE(r.rewritten.find("/*writes_records*/ true"), std::string::npos);
}

TEST(Lowering, IndexSpaceBindings) {
  FileResult r = lower(R"(
void f(rotor::IndexSpace<2>& grid, rotor::DistArray<double, 2>& A) {
#pragma rotor parallel_for ordered
  for (auto [i, j] : grid) {
    A(i, j) += A(i - 1, j + 2);
  }
}
)");
  ASSERT_TRUE(r.ok);
  const auto& m = r.loops[0].model;
  EXPECT_EQ(m.space, rotor::analysis::SpaceKind::index_space);
  EXPECT_EQ(m.fields, (std::vector<std::string>{"i0", "i1"}));
  ASSERT_EQ(m.accesses.size(), 2u);
  EXPECT_TRUE(m.accesses[0].write);
  EXPECT_FALSE(m.accesses[1].write);
  EXPECT_EQ(m.accesses[1].subscripts[0].offset.value, -1);
  EXPECT_EQ(m.accesses[1].subscripts[1].field, 1);
  EXPECT_EQ(m.accesses[1].subscripts[1].offset.value, 2);
  EXPECT_NE(r.rewritten.find("const ::rotor::Index<2>& rotor_point"), std::string::npos);
  EXPECT_NE(r.rewritten.find("auto [i, j] = rotor_point;"), std::string::npos);
  EXPECT_NE(r.rewritten.find("::rotor::codegen::index_keys<2>()"), std::string::npos);
}

TEST(Lowering, Escapes) {
  FileResult r = lower(R"(
void g(int);
void f(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 1>& A) {
  int last = 0;
  double sum = 0;
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    last = r.user;
    float* p = A.data();
    g(r.item);
    sum += 1;
    if (sum > 3) { p[0] = 1; }
  }
  g(last); // read after the loop: 'last' is no per-iteration temporary
}
)");
  ASSERT_TRUE(r.ok);
  const auto& m = r.loops[0].model;
  std::vector<Escape::Kind> kinds;
  for (const auto& e : m.escapes) {
    kinds.push_back(e.kind);
  }
  EXPECT_EQ(kinds,
            (std::vector<Escape::Kind>{Escape::Kind::outside_write, Escape::Kind::pointer_taken,
                                       Escape::Kind::unknown_call, Escape::Kind::outside_write}));
  EXPECT_TRUE(m.reductions.empty()); // sum is also read
  EXPECT_EQ(r.loops[0].plan.kind, rotor::analysis::PlanKind::serial);
  ASSERT_FALSE(r.remarks.empty());
  EXPECT_NE(r.remarks[0].message.find("loop not parallelized"), std::string::npos);
}

TEST(Lowering, HelperFunctionsAreAnalysedWithTheirArguments) {
  FileResult r = lower(R"(
static void bump(rotor::DistArray<float, 2>& M, int row, double& acc) {
  M(row, 0) += 1.0f;
  acc += 1.0;
}
double f(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 2>& W) {
  double acc = 0;
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    bump(W, r.item + 2, acc);
  }
  return acc;
}
)");
  ASSERT_TRUE(r.ok);
  const auto& m = r.loops[0].model;
  ASSERT_EQ(m.accesses.size(), 1u);
  EXPECT_EQ(m.accesses[0].array, "W");
  EXPECT_TRUE(m.accesses[0].write);
  EXPECT_EQ(m.accesses[0].subscripts[0].field, 1);
  EXPECT_EQ(m.accesses[0].subscripts[0].offset.value, 2);
  ASSERT_EQ(m.reductions.size(), 1u);
  EXPECT_EQ(m.reductions[0].name, "acc");
  EXPECT_TRUE(m.escapes.empty());
}

TEST(Lowering, SparseCapableOnlyForSubscriptedBufferedArrays) {
  // w is only subscripted: the runtime may give workers sparse buffers in its place.
  FileResult direct = lower(R"(
void f(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 1>& w) {
#pragma rotor parallel_for buffered(w)
  for (const Rating& r : ratings) {
    w[r.user] += w[r.item] * r.value;
  }
}
)");
  ASSERT_TRUE(direct.ok);
  EXPECT_NE(direct.rewritten.find("::rotor::codegen::SparseCapable<0>{},"), std::string::npos);
  // Passed to a helper whose parameter is a DistArray&: it must stay a DistArray.
  FileResult passed = lower(R"(
static void bump(rotor::DistArray<float, 1>& M, int i) { M[i] += 1.0f; }
void f(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 1>& w) {
#pragma rotor parallel_for buffered(w)
  for (const Rating& r : ratings) {
    bump(w, r.user);
  }
}
)");
  ASSERT_TRUE(passed.ok);
  EXPECT_NE(passed.rewritten.find("run_loop("), std::string::npos);
  EXPECT_EQ(passed.rewritten.find("SparseCapable"), std::string::npos);
}

TEST(Lowering, ControlFlowRewrite) {
  FileResult r = lower(R"(
void f(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 1>& A) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    for (int k = 0; k < 3; ++k) { if (k == 1) continue; if (k == 2) break; }
    if (r.value < 0) continue;
    A[r.user] += r.value;
  }
}
)");
  ASSERT_TRUE(r.ok);
  EXPECT_NE(r.rewritten.find("if (r.value < 0) return;"), std::string::npos);
  EXPECT_NE(r.rewritten.find("if (k == 1) continue; if (k == 2) break;"), std::string::npos);
}

// A std::vector written as rows `W[key * k + j]` is the model array (rows, k): (key, whole).
TEST(Lowering, RowVectorIsARowArray) {
  FileResult r = lower(R"(
#include <vector>
void f(rotor::Dataset<Rating>& ratings, std::vector<float>& W, const std::vector<double>& X,
       int k) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    for (int j = 0; j < k; ++j) {
      W[(r.user + 1) * k + j] += X[r.item];
    }
  }
}
)");
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.loops.size(), 1u);
  const auto& m = r.loops[0].model;
  ASSERT_EQ(m.arrays.size(), 1u); // X is only read: an outside read, not an array
  EXPECT_EQ(m.arrays[0].name, "W");
  EXPECT_EQ(m.arrays[0].rank, 2);
  EXPECT_TRUE(m.arrays[0].row_vector);
  ASSERT_EQ(m.accesses.size(), 1u);
  EXPECT_TRUE(m.accesses[0].write);
  EXPECT_EQ(m.accesses[0].subscripts[0].kind, Subscript::Kind::key);
  EXPECT_EQ(m.accesses[0].subscripts[0].field, 0);
  EXPECT_EQ(m.accesses[0].subscripts[0].offset.value, 1);
  EXPECT_EQ(m.accesses[0].subscripts[1].kind, Subscript::Kind::whole);
  EXPECT_EQ(r.loops[0].plan.kind, rotor::analysis::PlanKind::one_d);
  EXPECT_NE(r.rewritten.find("auto rotor_view_W = ::rotor::codegen::adopt_rows(W, "
                             "static_cast<std::int64_t>(k));"),
            std::string::npos);
  EXPECT_NE(r.rewritten.find("/*views*/ {\"W\"}"), std::string::npos);
}

// Each of these subscripts can reach another row, or the vector is used as a whole: serial, and
// a serial plan binds no view. One function per case, in one file (one parse).
TEST(Lowering, RowVectorUnboundedStaysSerial) {
  const std::vector<std::string> cases = {
      "for (int j = 0; j <= k; ++j) W[r.user * k + j] += 1;",
      "for (int j = 1; j < k; ++j) W[r.user * k + j - 1] += 1;",
      "for (int j = -1; j < k; ++j) W[r.user * k + j] += 1;",
      "for (int j = 0; j < k; ++j) { W[r.user * k + j] += 1; ++j; }",
      "for (int j = 0; j < k; j += 2) W[r.user * k + j] += 1;",
      "for (int j = 0; j < k + 1; ++j) W[r.user * k + j] += 1;",
      "W[r.user * k] += 1;",
      "W[r.user * 4 + 4] += 1;",
      "W[r.user * k + r.item] += 1;",
      "W[r.user * k + 1] += 1;",
      "W[r.user * 2] += 1; W[r.item * 3] += 1;",
      "W[r.user * 2] += 1; W.resize(9);",
      "W[r.user * 2] += 1; float* p = W.data(); *p = 1;",
      "W[r.user * 2] += 1; std::vector<float> copy = W; (void)copy;",
      "W[static_cast<unsigned char>(r.user) * 2] += 1;"};
  std::string source = "#include <vector>\n";
  for (std::size_t i = 0; i < cases.size(); ++i) {
    source += "void f" + std::to_string(i) +
              "(rotor::Dataset<Rating>& ratings, std::vector<float>& W, int k) {\n"
              "#pragma rotor parallel_for\n"
              "  for (const Rating& r : ratings) {\n    " +
              cases[i] + "\n  }\n}\n";
  }
  FileResult r = lower(source);
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.loops.size(), cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(r.loops[i].plan.kind, rotor::analysis::PlanKind::serial) << cases[i];
  }
  EXPECT_EQ(r.rewritten.find("adopt_rows"), std::string::npos);
}

// A std::vector<std::vector<T>> written as t[row][k] is a rank-2 array (row, whole), staged for
// the loop: the runtime gets the staged array, the body a local of the table's name over it.
TEST(Lowering, TableIsARowArray) {
  FileResult r = lower(R"(
#include <vector>
void f(rotor::Dataset<Rating>& ratings, std::vector<std::vector<int>>& nw, int k) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    for (int j = 0; j < k; ++j) {
      nw[r.user][j] += static_cast<int>(nw.size() + nw[r.user].size());
    }
  }
}
)");
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.loops.size(), 1u);
  const auto& m = r.loops[0].model;
  ASSERT_EQ(m.arrays.size(), 1u);
  EXPECT_EQ(m.arrays[0].name, "nw");
  EXPECT_EQ(m.arrays[0].rank, 2);
  ASSERT_EQ(m.accesses.size(), 1u);
  EXPECT_TRUE(m.accesses[0].write);
  EXPECT_EQ(m.accesses[0].subscripts[0].kind, Subscript::Kind::key);
  EXPECT_EQ(m.accesses[0].subscripts[1].kind, Subscript::Kind::whole);
  EXPECT_EQ(r.loops[0].plan.kind, rotor::analysis::PlanKind::one_d);
  EXPECT_NE(r.rewritten.find("auto rotor_view_nw = ::rotor::codegen::stage_table(nw);"),
            std::string::npos);
  EXPECT_NE(r.rewritten.find("std::tie(rotor_view_nw.array())"), std::string::npos);
  EXPECT_NE(
      r.rewritten.find("auto nw = ::rotor::codegen::staged_rows(rotor_view_nw, rotor_table_nw);"),
      std::string::npos);
}

// A table row reached other than by t[row][k] / t[row].size(), or a row the analysis cannot
// name: serial, and a serial plan stages nothing.
TEST(Lowering, TableMisuseStaysSerial) {
  const std::vector<std::string> cases = {
      "nw[ids[r.user]][0] += 1;",
      "nw[r.user][0] += 1; nw[r.item][1] += 1;",
      "auto& row = nw[r.user]; row[0] += 1;",
      "nw[r.user].push_back(1);",
      "nw[r.user][0] += 1; nw.resize(3);",
      "nw[r.user][0] += 1; int* p = nw[r.user].data(); *p = 1;",
      "nw[r.user][0] += 1; g(nw);",
      "nw[r.user][0] += 1; auto copy = nw; (void)copy;",
      "nw[r.user][0] += 1; [=]() mutable { nw[r.user][0] += 1; }();",
      "[nw]() mutable { nw[0][0] += 1; }();",
      "for (auto& x : nw[r.user]) x += 1;"};
  std::string source =
      "#include <vector>\nvoid g(std::vector<std::vector<int>>& t) { t[0][0] = 1; }\n";
  for (std::size_t i = 0; i < cases.size(); ++i) {
    source += "void f" + std::to_string(i) +
              "(rotor::Dataset<Rating>& ratings, std::vector<std::vector<int>>& nw, "
              "const std::vector<int>& ids) {\n"
              "#pragma rotor parallel_for\n"
              "  for (const Rating& r : ratings) {\n    " +
              cases[i] + "\n  }\n}\n";
  }
  FileResult r = lower(source);
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.loops.size(), cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(r.loops[i].plan.kind, rotor::analysis::PlanKind::serial) << cases[i];
  }
  EXPECT_EQ(r.rewritten.find("stage_table"), std::string::npos);
}

// Raw pointer tables (docs/design/containers.md, "Pointer tables"): `int** nw` indexed
// nw[key][k] inside 'for k < K' is staged; `float* W` indexed W[key * K + k] and `long* b`
// indexed b[key] are views; their rows are counted from the loop's Dataset.
TEST(Lowering, PointerTablesAreRowArrays) {
  FileResult r = lower(R"(
void f(rotor::Dataset<Rating>& ratings, int** nw, float* W, long* b, int K) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    for (int k = 0; k < K; ++k) {
      nw[r.item][k] += 1;
      W[r.user * K + k] *= 0.5f;
    }
    b[r.user + 1] += 1;
  }
}
)");
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.loops.size(), 1u);
  const auto& m = r.loops[0].model;
  ASSERT_EQ(m.arrays.size(), 3u);
  for (const auto& a : m.accesses) {
    EXPECT_EQ(a.subscripts[0].kind, Subscript::Kind::key) << a.text;
    EXPECT_EQ(a.subscripts[1].kind, Subscript::Kind::whole) << a.text;
  }
  EXPECT_EQ(r.loops[0].plan.kind, rotor::analysis::PlanKind::rotation);
  EXPECT_NE(r.rewritten.find("auto rotor_view_nw = ::rotor::codegen::stage_pointer_table(nw, "
                             "static_cast<std::int64_t>(K), "
                             "{::rotor::codegen::rows_of_key(ratings, &Rating::item, 0)});"),
            std::string::npos)
      << r.rewritten;
  EXPECT_NE(r.rewritten.find("auto rotor_view_W = ::rotor::codegen::adopt_pointer_rows(W, "
                             "static_cast<std::int64_t>(K), "
                             "{::rotor::codegen::rows_of_key(ratings, &Rating::user, 0)});"),
            std::string::npos);
  EXPECT_NE(r.rewritten.find("::rotor::codegen::adopt_pointer_rows(b, 1, "
                             "{::rotor::codegen::rows_of_key(ratings, &Rating::user, 1)})"),
            std::string::npos);
  EXPECT_NE(
      r.rewritten.find("auto nw = ::rotor::codegen::staged_rows(rotor_view_nw, rotor_table_nw);"),
      std::string::npos);
}

// A pointer table whose extent the accesses do not bound, or used other than by subscript: the
// loop is serial and binds nothing.
TEST(Lowering, UnboundedPointerTablesStaySerial) {
  const std::vector<std::string> cases = {
      "if (r.value > 0) { W[r.user] += 1; }",       // not in every iteration
      "if (r.item == 0) continue; W[r.user] += 1;", // may end early
      "nw[r.user][r.item] += 1;",                   // column is data
      "for (int k = 0; k < K; ++k) { nw[r.user][k] += 1; } nw[r.item][7] += 1;", // K vs 8
      "W[ids[r.user]] += 1;",                                                    // row from data
      "W[r.user * K] += 1;",                                // column 0 of K: length unproven
      "W[r.user] += 1; g(W, r.user);",                      // passed to a helper
      "int* row = nw[r.user]; row[0] += 1;",                // a row pointer kept
      "W[r.user] += 1; *W = 0.0f;",                         // other use
      "for (int it = 0; it < 2; ++it) { W[r.user] += 1; }", // a loop other than the column's
      "W[r.user] += x[r.item];",                            // reads another pointer
  };
  std::string source = "void g(float* p, int i) { p[i] = 1.0f; }\n";
  for (std::size_t i = 0; i < cases.size(); ++i) {
    source += "void f" + std::to_string(i) +
              "(rotor::Dataset<Rating>& ratings, int** nw, float* W, const int* ids, float* x, "
              "int K) {\n"
              "#pragma rotor parallel_for\n"
              "  for (const Rating& r : ratings) {\n    " +
              cases[i] + "\n  }\n}\n";
  }
  FileResult r = lower(source);
  for (const auto& d : r.diagnostics) {
    ADD_FAILURE() << d.message;
  }
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.loops.size(), cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(r.loops[i].plan.kind, rotor::analysis::PlanKind::serial) << cases[i];
  }
  EXPECT_EQ(r.rewritten.find("stage_pointer_table"), std::string::npos);
  EXPECT_EQ(r.rewritten.find("adopt_pointer_rows"), std::string::npos);
}

// A reference declared outside the loop is not followed: one that may point into an array the
// loop writes blocks it (an element, a container only read); one to a plain variable's field, or
// to a container the loop writes (bound: the runtime sees its memory), does not.
TEST(Lowering, OutsideReferences) {
  FileResult r = lower(R"(
#include <vector>
struct Config { float lr; };
void f(rotor::Dataset<Rating>& ratings, std::vector<float>& W, rotor::DistArray<float, 2>& A,
       Config cfg) {
  const float& lr = cfg.lr;
  auto& Wr = W;
  const float& first = W[0];
  const float& a00 = A(0, 0);
  const auto& Wc = W;
#pragma rotor parallel_for
  for (const Rating& r : ratings) { Wr[r.user] += lr; }
#pragma rotor parallel_for
  for (const Rating& r : ratings) { W[r.user] += first; }
#pragma rotor parallel_for
  for (const Rating& r : ratings) { A(r.user, 0) += a00; }
#pragma rotor parallel_for
  for (const Rating& r : ratings) { W[r.user] += Wc[0]; }
}
)");
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.loops.size(), 4u);
  EXPECT_EQ(r.loops[0].plan.kind, rotor::analysis::PlanKind::one_d);
  EXPECT_EQ(r.loops[1].plan.kind, rotor::analysis::PlanKind::serial);
  EXPECT_EQ(r.loops[2].plan.kind, rotor::analysis::PlanKind::serial);
  EXPECT_EQ(r.loops[3].plan.kind, rotor::analysis::PlanKind::serial);
}

// Eigen matrices are modelled in their memory order: a column-major matrix's row is the view's
// second dimension, a row-major matrix's row its first.
TEST(Lowering, EigenMatrixInMemoryOrder) {
  FileResult r = lower(R"(
#include <Eigen/Core>
using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
void f(rotor::Dataset<Rating>& ratings, Eigen::MatrixXf& U, RowMajor& V) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    U.row(r.user) *= 0.5f;
    V(r.item, 2) += 1;
  }
}
)");
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.loops.size(), 1u);
  const auto& m = r.loops[0].model;
  ASSERT_EQ(m.accesses.size(), 2u);
  EXPECT_TRUE(m.accesses[0].write);
  EXPECT_EQ(m.accesses[0].subscripts[0].kind, Subscript::Kind::whole);
  EXPECT_EQ(m.accesses[0].subscripts[1].kind, Subscript::Kind::key);
  EXPECT_EQ(m.accesses[0].subscripts[1].field, 0);
  EXPECT_EQ(m.accesses[1].subscripts[0].kind, Subscript::Kind::key);
  EXPECT_EQ(m.accesses[1].subscripts[0].field, 1);
  EXPECT_EQ(m.accesses[1].subscripts[1].kind, Subscript::Kind::constant);
  EXPECT_TRUE(m.arrays[0].container);
  EXPECT_FALSE(m.arrays[0].row_vector);
  EXPECT_EQ(r.loops[0].plan.kind, rotor::analysis::PlanKind::rotation);
  EXPECT_NE(r.rewritten.find("::rotor::codegen::adopt_matrix(U)"), std::string::npos);
}

TEST(Lowering, Diagnostics) {
  FileResult misplaced =
      lower("void f() {\n#pragma rotor parallel_for\n  int x = 0; (void)x;\n}\n");
  EXPECT_FALSE(misplaced.ok);
  ASSERT_EQ(misplaced.diagnostics.size(), 1u);
  EXPECT_EQ(misplaced.diagnostics[0].line, 3);
  EXPECT_NE(misplaced.diagnostics[0].message.find("must be followed by a for loop"),
            std::string::npos);

  FileResult clause = lower("void f() {\n#pragma rotor parallel_for fast\n}\n");
  EXPECT_FALSE(clause.ok);
  ASSERT_FALSE(clause.diagnostics.empty());
  EXPECT_NE(clause.diagnostics[0].message.find("unknown clause 'fast'"), std::string::npos);

  FileResult syntax = lower("void f() { int x = ; }\n");
  EXPECT_FALSE(syntax.ok);
  EXPECT_TRUE(syntax.loops.empty());
}

// Loops in templates: analysed per instantiation, rewritten once (frontend/src/TemplateLoops.h).
TEST(Lowering, TemplateLoopAnalysedPerInstantiation) {
  FileResult r = lower(R"(
template <class T>
void step(rotor::Dataset<Rating>& ratings, rotor::DistArray<T, 2>& W, T lr) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    auto w = W.row(r.user);
    w(0) += lr * r.value;
  }
}
void use(rotor::Dataset<Rating>& d, rotor::DistArray<float, 2>& A,
         rotor::DistArray<double, 2>& B) {
  step(d, A, 0.1f);
  step(d, B, 0.1);
}
)");
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.loops.size(), 1u); // one loop, one rewrite: both instantiations agree
  EXPECT_EQ(r.loops[0].plan.kind, rotor::analysis::PlanKind::one_d);
  ASSERT_EQ(r.loops[0].model.arrays.size(), 1u);
  EXPECT_EQ(r.loops[0].model.arrays[0].name, "W");
  const std::size_t call = r.rewritten.find("::rotor::codegen::run_loop(");
  ASSERT_NE(call, std::string::npos);
  EXPECT_EQ(r.rewritten.find("::rotor::codegen::run_loop(", call + 1), std::string::npos);
}

TEST(Lowering, TemplateLoopNeverInstantiatedIsLeftAsWritten) {
  const char* code = R"(
template <class T> void never(rotor::Dataset<Rating>& d, T* p) {
#pragma rotor parallel_for
  for (const Rating& r : d) {
    p[r.user] = 1;
  }
}
)";
  FileResult r = lower(code);
  ASSERT_TRUE(r.ok);
  EXPECT_TRUE(r.loops.empty());
  EXPECT_EQ(r.rewritten.find("run_loop"), std::string::npos);
}

TEST(Lowering, TemplateInstantiationsNeedingDifferentCodeAreAnError) {
  FileResult r = lower(R"(
template <bool Shared> void count(rotor::Dataset<Rating>& d, rotor::DistArray<int, 1>& A) {
#pragma rotor parallel_for
  for (const Rating& r : d) {
    if constexpr (Shared) {
      A[0] += 1;
    } else {
      A[r.user] += 1;
    }
  }
}
void use(rotor::Dataset<Rating>& d, rotor::DistArray<int, 1>& A) {
  count<false>(d, A);
  count<true>(d, A);
}
)");
  EXPECT_FALSE(r.ok);
  ASSERT_FALSE(r.diagnostics.empty());
  const std::string& m = r.diagnostics.back().message;
  EXPECT_NE(m.find("count<false>"), std::string::npos) << m;
  EXPECT_NE(m.find("count<true>"), std::string::npos) << m;
  EXPECT_NE(m.find("need different code"), std::string::npos) << m;
}

TEST(Lowering, TemplateLoopOverADependentRangeIsAnError) {
  FileResult r = lower(R"(
template <class Rec> void over(rotor::Dataset<Rec>& d, rotor::DistArray<float, 1>& A) {
#pragma rotor parallel_for
  for (const Rec& r : d) {
    A[r.user] += r.value;
  }
}
void use(rotor::Dataset<Rating>& d, rotor::DistArray<float, 1>& A) { over(d, A); }
)");
  EXPECT_FALSE(r.ok);
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_NE(r.diagnostics[0].message.find("depends on a template parameter"), std::string::npos)
      << r.diagnostics[0].message;
}

// A Dataset loop that writes its records and reads another name of the same dataset: another
// worker's records may be read mid-update, so the loop is serial.
TEST(Lowering, DatasetAliasReadInARecordWritingLoopIsSerial) {
  FileResult r = lower(R"(
void f(rotor::Dataset<Token>& tokens, rotor::DistArray<int, 2>& nw) {
  rotor::Dataset<Token>& alias = tokens;
#pragma rotor parallel_for
  for (Token& t : tokens) {
    nw(t.word, 0) += alias[5].topic;
    t.topic = 1;
  }
}
)");
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.loops.size(), 1u);
  EXPECT_EQ(r.loops[0].plan.kind, rotor::analysis::PlanKind::serial);
  EXPECT_NE(r.loops[0].plan.reason.find("records of the dataset"), std::string::npos)
      << r.loops[0].plan.reason;
}

} // namespace
