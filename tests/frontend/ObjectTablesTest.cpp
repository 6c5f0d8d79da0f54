// Raw pointer tables inside another object (issue 16, funk-svd's `Matrix* p` with a `double** m`
// behind get_value/set_value): which shapes are parameter arrays (named by their path, staged
// with the table's row pointers pointed at the staged rows: stage_object_table) and which nearest
// shapes stay serial (docs/design/containers.md, "Tables inside another object").
#include "rotor/frontend/Frontend.h"

#include "FrontendTestOptions.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace {

using rotor::analysis::PlanKind;
using rotor::frontend::FileResult;
using rotor::frontend::test::options;

// funk-svd's Matrix, with the methods the traps call.
const char* kMatrix = R"(
void touch(double** t, int i, int j);
class Matrix {
 protected:
  double** m;
  int col, row;
 public:
  Matrix(int r, int c);
  void set_value(int i, int j, double value) { this->m[i][j] = value; }
  double get_value(int i, int j) { return this->m[i][j]; }
  void set_and_grow(int i, int j, double value) { m[i][j] = value; row = row + 0; }
  void set_far(int i, int j, double value);
  virtual void set_virtual(int i, int j, double value) { m[i][j] = value; }
  void leak(int i, int j) { touch(m, i, j); }
  void set_maybe(int i, int j, double value) { if (value < 0) return; m[i][j] = value; }
  void set_next(int i, int j, double value) { j = j + 1; m[i][j] = value; }
  void set_row(int i, double value) { for (int j = 0; j < col; ++j) m[i][j] = value; }
#define COLUMN(j) (j + 1)
  void set_macro(int i, int j, double value) { m[i][COLUMN(j)] = value; }
  void reset(int i, int j) { m = nullptr; (void)i; (void)j; }
  std::vector<double>& scale;
  double scaled(int i, int j) { return m[i][j] * this->scale[i]; }
};
)";

FileResult lower(const std::string& body) {
  return rotor::frontend::process_source("#include \"common.h\"\n#include <vector>\n" +
                                             std::string(kMatrix) + body,
                                         "t.cpp", options());
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// One loop, planned parallel, with exactly one checked column (`column`), and `unchecked` (an
/// access whose column is a counter below the row length) left as written.
void expect_one_checked_column(const FileResult& r, const std::string& column,
                               const std::string& unchecked) {
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.loops.size(), 1u);
  EXPECT_NE(r.loops[0].plan.kind, PlanKind::serial) << r.loops[0].plan.reason;
  ASSERT_EQ(r.loops[0].checked_columns.size(), 1u);
  EXPECT_TRUE(has(r.loops[0].checked_columns[0], column)) << r.loops[0].checked_columns[0];
  EXPECT_TRUE(has(r.rewritten, unchecked)) << r.rewritten;
}

std::vector<std::string> array_names(const FileResult& r, std::size_t loop) {
  std::vector<std::string> names;
  for (const auto& a : r.loops[loop].model.arrays) {
    names.push_back(a.name);
  }
  return names;
}

// The funk-svd shape: tables of `Matrix* p, q` members, used only in the methods (also inside
// `predict`, a method of the loop's own object with its own column loop).
TEST(ObjectTables, MemberPointerTablesThroughMethods) {
  FileResult r = lower(R"(
class Svd {
 public:
  Matrix* p;
  Matrix* q;
  int factors;
  double predict(int user, int item) {
    double s = 0.0;
    for (int i = 0; i < factors; i++) s += p->get_value(user, i) * q->get_value(item, i);
    return s;
  }
  void epoch(rotor::Dataset<Rating>& ratings) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      const double error = r.value - predict(r.user, r.item);
      for (int k = 0; k < factors; k++) {
        const double qc = 0.01 * error * p->get_value(r.user, k);
        q->set_value(r.item, k, q->get_value(r.item, k) + qc);
        p->set_value(r.user, k, p->get_value(r.user, k) + 0.5);
      }
    }
  }
};
)");
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.loops.size(), 1u);
  EXPECT_EQ(r.loops[0].plan.kind, PlanKind::rotation) << r.loops[0].model.escapes.size();
  EXPECT_EQ(array_names(r, 0), (std::vector<std::string>{"this->p->m", "this->q->m"}));
  // m is protected: the binding reaches it through a pointer to member that an explicit
  // instantiation takes, declared before the class around the loop (on the same line).
  EXPECT_TRUE(has(r.rewritten,
                  "namespace rotor_member_39_Matrix_m { struct Tag { using type = double** "
                  "::Matrix::*; friend type rotor_member_of(Tag); }; template <class T, typename "
                  "T::type M> struct Access { friend typename T::type rotor_member_of(T) { return "
                  "M; } }; template struct Access<Tag, &::Matrix::m>; } class Svd {"))
      << r.rewritten;
  EXPECT_TRUE(has(r.rewritten, "auto rotor_view_this__p__m = ::rotor::codegen::stage_object_table("
                               "(this->p)->*rotor_member_of(rotor_member_39_Matrix_m::Tag{}), "
                               "static_cast<std::int64_t>(factors), "
                               "{::rotor::codegen::rows_of_key(ratings, &Rating::user, 0)});"));
  EXPECT_TRUE(has(r.rewritten, "stage_object_table((this->q)->*rotor_member_of("
                               "rotor_member_39_Matrix_m::Tag{}), static_cast<std::int64_t>("
                               "factors), {::rotor::codegen::rows_of_key(ratings, &Rating::item, "
                               "0)})"));
  EXPECT_TRUE(has(r.rewritten, "std::tie(rotor_view_this__p__m.array(), "
                               "rotor_view_this__q__m.array())"));
  EXPECT_FALSE(has(r.rewritten, "staged_rows")); // the methods name the table itself
  EXPECT_TRUE(has(r.rewritten, "p->set_value(r.user, k, p->get_value(r.user, k) + 0.5);"));
}

// Tables reached through a pointer parameter, a reference parameter, a member object, and a
// table of the loop's own object written in a method of it: all staged with swapped rows.
TEST(ObjectTables, VariablesMemberObjectsAndOwnMethods) {
  FileResult r = lower(R"(
void train(rotor::Dataset<Rating>& ratings, Matrix* P, Matrix& Q, int K) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    for (int k = 0; k < K; ++k) {
      P->set_value(r.user, k, P->get_value(r.user, k) * 0.5);
      Q.set_value(r.item, k, 1.0);
    }
  }
}
struct Model {
  Matrix U;
  int** nw;
  int K;
  void bump(int w, int k) { nw[w][k] += 1; }
  void epoch(rotor::Dataset<Rating>& ratings) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      for (int k = 0; k < K; ++k) {
        U.set_value(r.user, k, 2.0);
        bump(r.item, k);
      }
    }
  }
};
)");
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.loops.size(), 2u);
  EXPECT_EQ(r.loops[0].plan.kind, PlanKind::rotation);
  EXPECT_EQ(array_names(r, 0), (std::vector<std::string>{"P->m", "Q.m"}));
  EXPECT_TRUE(has(r.rewritten, "stage_object_table((P)->*rotor_member_of(rotor_member_"));
  EXPECT_TRUE(has(r.rewritten, "stage_object_table((Q).*rotor_member_of(rotor_member_"));
  EXPECT_EQ(r.loops[1].plan.kind, PlanKind::rotation);
  EXPECT_EQ(array_names(r, 1), (std::vector<std::string>{"this->U.m", "nw"}));
  EXPECT_TRUE(has(r.rewritten, "stage_object_table((this->U).*rotor_member_of(rotor_member_"));
  // nw is written only in bump, which a local of the body would not reach.
  EXPECT_TRUE(has(r.rewritten, "stage_object_table(this->nw, static_cast<std::int64_t>(K), "));
  EXPECT_FALSE(has(r.rewritten, "staged_rows"));
}

// funk-svd's own loop: an index loop over a std::vector of ((user, item), rating); the rows are
// counted from the keys the inspector read (Dataset<Iteration<2>> rotor_iterations).
TEST(ObjectTables, RowsOfAVectorLoopAreItsInspectedKeys) {
  FileResult r = lower(R"(
class Svd {
  Matrix* q;
  Matrix* p;
  int factors;
  std::vector<std::pair<std::pair<int, int>, double>> dense_users;
 public:
  void train() {
    int u_id, i_id;
    double error;
#pragma rotor parallel_for
    for (std::size_t j = 0; j < this->dense_users.size(); j++) {
      u_id = this->dense_users[j].first.first;
      i_id = this->dense_users[j].first.second;
      error = this->dense_users[j].second;
      for (int k = 0; k < this->factors; k++) {
        q->set_value(i_id, k, q->get_value(i_id, k) + error * p->get_value(u_id, k));
        p->set_value(u_id, k, p->get_value(u_id, k) + error);
      }
    }
  }
};
)");
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.loops.size(), 1u);
  EXPECT_EQ(r.loops[0].plan.kind, PlanKind::rotation);
  EXPECT_TRUE(has(r.rewritten, "static_cast<std::int64_t>(factors), "
                               "{::rotor::codegen::rows_of_key(rotor_inspection, "
                               "&::rotor::codegen::Iteration<2>::k0, 0)});"))
      << r.rewritten;
  EXPECT_TRUE(has(r.rewritten, "{::rotor::codegen::rows_of_key(rotor_inspection, "
                               "&::rotor::codegen::Iteration<2>::k1, 0)});"));
}

// A public table member is named as written, through a global object and a pointer to it.
TEST(ObjectTables, PublicTablesAreNamedAsWritten) {
  FileResult r = lower(R"(
struct Table {
  float** rows;
  void add(int i, int j, float v) { rows[i][j] += v; }
};
Table counts;
void count(rotor::Dataset<Rating>& ratings, Table* other, int K) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    for (int k = 0; k < K; ++k) {
      counts.add(r.user, k, 1.0f);
      other->rows[r.item][k] += 2.0f;
    }
  }
}
)");
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.loops.size(), 1u);
  EXPECT_EQ(r.loops[0].plan.kind, PlanKind::rotation);
  EXPECT_EQ(array_names(r, 0), (std::vector<std::string>{"counts.rows", "other->rows"}));
  EXPECT_TRUE(has(r.rewritten, "auto rotor_view_counts_rows = ::rotor::codegen::stage_object_table("
                               "counts.rows, static_cast<std::int64_t>(K), "))
      << r.rewritten;
  EXPECT_TRUE(has(r.rewritten, "stage_object_table(other->rows, static_cast<std::int64_t>(K), "));
  EXPECT_FALSE(has(r.rewritten, "rotor_member_of"));
}

// The nearest shapes that must stay serial (each loop on its own).
TEST(ObjectTables, UnboundedColumnsAreCheckedAtRunTime) {
  // set_next's column j + 1 has no bound below the row length K that set_value's column proves:
  // rotor-cc rewrites it to a run-time check (docs/design/containers.md, "Checked columns").
  FileResult r = lower(R"(
struct S {
  Matrix* p;
  int K;
  void f(rotor::Dataset<Rating>& ratings) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      for (int k = 0; k < K; ++k) {
        p->set_value(r.user, k, 1.0);
        p->set_next(r.user, k, 2.0);
      }
    }
  }
};
)");
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.loops.size(), 1u);
  EXPECT_EQ(r.loops[0].plan.kind, PlanKind::one_d);
  ASSERT_EQ(r.loops[0].checked_columns.size(), 1u);
  EXPECT_TRUE(has(r.loops[0].checked_columns[0],
                  "column of 'm[i][j]' (t.cpp:18) checked at run time against the row length K "
                  "of 'this->p->m'"))
      << r.loops[0].checked_columns[0];
  EXPECT_TRUE(
      has(r.rewritten, "m[i][::rotor::codegen::checked_column(m, j, \"t.cpp:18: m[i][j]\")]"))
      << r.rewritten;
  EXPECT_TRUE(has(r.rewritten, "stage_object_table"));
}

// A column that is a loop counter below the proven row length (`k`, `k - 1` in `for (k = 1; k <
// K; ++k)`) stays as written; a column from the record is checked (containers.md, "Checked
// columns").
TEST(ObjectTables, CounterColumnsInsideTheRowAreNotChecked) {
  FileResult r = lower(R"(
struct S {
  double** t;
  int K;
  void f(rotor::Dataset<Rating>& ratings) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      for (int k = 0; k < K; ++k) { t[r.user][k] = 1.0; }
      for (int k = 1; k < K; ++k) { t[r.user][k] += t[r.user][k - 1]; }
      t[r.user][r.item] += 1.0;
    }
  }
};
)");
  expect_one_checked_column(r, "column of 't[r.user][r.item]'",
                            "{ t[r.user][k] += t[r.user][k - 1]; }");
}

// A search loop over a counter declared before it (GibbsLDA++'s `for (topic = 0; topic < K;
// topic++) if (p[topic] > u) break;`): inside the loop's body the counter is below K, so the
// column is not checked; after the loop it may be K (no break), so that column is checked.
TEST(ObjectTables, CounterDeclaredBeforeItsLoopIsBoundedInTheBody) {
  FileResult r = lower(R"(
struct S {
  double** t;
  int K;
  void f(rotor::Dataset<Rating>& ratings) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      for (int k = 0; k < K; ++k) { t[r.user][k] = 1.0; }
      int c = r.item;
      for (c = 0; c < K; c++) { if (t[r.user][c] > 2.0) break; }
      t[r.user][c] += 1.0;
    }
  }
};
)");
  expect_one_checked_column(r, "column of 't[r.user][c]' (t.cpp:36)",
                            "{ if (t[r.user][c] > 2.0) break; }");
}

// The same search loop where something else may change the counter while the body runs keeps the
// body's column checked (or the loop serial): an address or a reference taken before the loop, a
// lambda capturing it by reference, a write through `?:`, a reference argument (even a const one),
// a jump into the body past the init and the condition, a static counter, and a counter declared in
// the loop whose address its init takes.
TEST(ObjectTables, CounterThatMayChangeInTheBodyIsChecked) {
  struct Case {
    std::string before; // after `int c = 0;`
    std::string head;   // the search loop's head
    std::string body;   // before the access
    std::string column = "c";
  };
  const std::vector<Case> cases = {
      {"int* q = &c;", "for (c = 0; c < K; c++)", "*q = K + 3;"},
      {"int& q = c;", "for (c = 0; c < K; c++)", "q = K + 3;"},
      {"auto bump = [&] { c += K; };", "for (c = 0; c < K; c++)", "bump();"},
      {"int d = 0;", "for (c = 0; c < K; c++)", "(r.value > 0 ? c : d) = K;"},
      {"", "for (c = 0; c < K; c++)", "grow(c);"},
      {"switch (r.user) { case 0:", "for (c = 0; c < K; c++)", "case 1:"},
      {"static int s = 0;", "for (s = 0; s < K; s++)", "", "s"},
      {"", "for (int j = 0, *q = &j; j < K; ++j)", "*q = K + 3;", "j"},
      {"", "for (int j = 0, &q = j; j < K; ++j)", "q = K + 3;", "j"},
      {"", "for (c = 0; c < K; c++)", "int d = std::max(c, 0); (void)d;"},
  };
  std::string source =
      "#include <algorithm>\nvoid grow(int& c);\nstruct S {\n  double** t;\n  int K;\n";
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const bool in_switch = cases[i].before.rfind("switch", 0) == 0;
    source += "  void f" + std::to_string(i) +
              "(rotor::Dataset<Rating>& ratings) {\n"
              "#pragma rotor parallel_for\n"
              "    for (const Rating& r : ratings) {\n"
              "      for (int k = 0; k < K; ++k) { t[r.user][k] = 1.0; }\n"
              "      int c = 0;\n      " +
              cases[i].before + "\n      " + cases[i].head + " { " + cases[i].body +
              " if (t[r.user][" + cases[i].column + "] > 2.0) break; }\n" +
              (in_switch ? "      }\n" : "") + "    }\n  }\n";
  }
  source += "};\n";
  FileResult r = lower(source);
  std::string diagnostics;
  for (const auto& d : r.diagnostics) {
    diagnostics += rotor::frontend::format(d);
  }
  ASSERT_TRUE(r.ok) << diagnostics;
  ASSERT_EQ(r.loops.size(), cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string access = "column of 't[r.user][" + cases[i].column + "]'";
    const bool checked =
        std::any_of(r.loops[i].checked_columns.begin(), r.loops[i].checked_columns.end(),
                    [&](const std::string& c) { return has(c, access); });
    EXPECT_TRUE(checked || r.loops[i].plan.kind == PlanKind::serial)
        << cases[i].before << " " << cases[i].head << " { " << cases[i].body << " }\n"
        << r.rewritten;
  }
  // A goto (not allowed in the loop body itself, but in a helper it calls) into the body.
  FileResult jump = lower(R"(
struct H {
  double** t;
  int K;
  int search(int u, double v) {
    int c = 0;
    if (v > 9) goto inside;
    for (c = 0; c < K; c++) { inside: if (t[u][c] > 2.0) break; }
    return 0;
  }
  void f(rotor::Dataset<Rating>& ratings) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      for (int k = 0; k < K; ++k) { t[r.user][k] = 1.0; }
      search(r.user, r.value);
    }
  }
};
)");
  ASSERT_TRUE(jump.ok);
  ASSERT_EQ(jump.loops.size(), 1u);
  EXPECT_TRUE(jump.loops[0].plan.kind == PlanKind::serial ||
              (jump.loops[0].checked_columns.size() == 1 &&
               has(jump.loops[0].checked_columns[0], "column of 't[u][c]'")))
      << jump.rewritten;
}

TEST(ObjectTables, NearestShapesStaySerial) {
  // Each shape, and a part of the reason it stays serial.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"if (r.value > 0) { p->set_value(r.user, k, 1.0); }",
       "is not made in every iteration"}, // call under a condition
      {"p->set_and_grow(r.user, k, 1.0);",
       "'row' is declared outside the loop"}, // writes the object's row
      {"p->set_far(r.user, k, 1.0);", "'set_far', whose body is not visible"}, // body not visible
      {"p->set_virtual(r.user, k, 1.0);",
       "virtual call to 'set_virtual'"}, // may dispatch elsewhere
      {"p->set_value(r.user, k, 1.0); p->leak(r.user, k);",
       "is used other than by subscript (m)"}, // passes m elsewhere
      {"p = q; p->set_value(r.user, k, 1.0);",
       "'p' is declared outside the loop"}, // writes the pointer member
      {"p->set_maybe(r.user, k, 1.0);",
       "'m[i][j]' is not made in every iteration"}, // method may return first
      {"p->set_value(r.user, k, 1.0); p->set_macro(r.user, k, 1.0);",
       "its column 'COLUMN(j)' is neither"}, // unbounded, in a macro: cannot be checked
      {"p->set_row(r.user, 1.0);",
       "'m[i][j]' has no bound, and no access proves the row length"}, // bound: the object's col
      {"p->set_value(r.user, k, 1.0); p->reset(r.user, k);",
       "is used other than by subscript (m)"}, // writes m itself
      {"Matrix c = *p; c.set_value(r.user, k, 1.0);",
       "writes through 'this->m[i]'"}, // a copy in the loop
      {"p->set_value(r.user, k, 1.0); all[r.item]->set_value(r.item, k, 1.0);",
       "reads through 'all'"}, // from data
      {"p->set_value(r.user, k, p->scaled(r.user, k));",
       "reads through 'this->scale', a reference member"}, // may name a written container
      {"p->set_value(r.user, k, 1.0); v.t[r.item][k] = 1.0;",
       "'v' is declared outside the loop"}, // vector table of another object
  };
  std::string source = "struct Holder { std::vector<std::vector<double>> t; };\n"
                       "struct S {\n  Matrix* p;\n  Matrix* q;\n  Matrix** all;\n  Holder v;\n"
                       "  int K;\n";
  for (std::size_t i = 0; i < cases.size(); ++i) {
    source += "  void f" + std::to_string(i) +
              "(rotor::Dataset<Rating>& ratings) {\n"
              "#pragma rotor parallel_for\n"
              "    for (const Rating& r : ratings) {\n"
              "      for (int k = 0; k < K; ++k) {\n        " +
              cases[i].first + "\n      }\n    }\n  }\n";
  }
  source += "};\n";
  FileResult r = lower(source);
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.loops.size(), cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(r.loops[i].plan.kind, PlanKind::serial) << cases[i].first;
    std::string reasons;
    for (const auto& e : r.loops[i].model.escapes) {
      reasons += e.what + "\n";
    }
    EXPECT_TRUE(has(reasons, cases[i].second)) << cases[i].first << "\n" << reasons;
  }
  EXPECT_FALSE(has(r.rewritten, "stage_object_table"));
}

} // namespace
