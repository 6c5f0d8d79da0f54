// Helper clones (docs/design/helper-clones.md): a member function the loop body calls that uses a
// buffered container by its own name is cloned into the body lambda, after the buffers' locals;
// every shape the clone could get wrong keeps the loop serial with a reason naming the helper.
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
  return rotor::frontend::process_source("#include \"common.h\"\n#include <vector>\n" + body,
                                         "t.cpp", options());
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string escapes(const FileResult& r, std::size_t i = 0) {
  std::string out;
  for (const auto& e : r.loops.at(i).model.escapes) {
    out += e.what + "\n";
  }
  return out;
}

// A class whose loop calls a helper; HELPER_DECL declares the helper in the class, BODY is the
// loop body, HELPER_DEF the out-of-line definitions after the loop.
std::string model(const std::string& helper_decl, const std::string& body,
                  const std::string& helper_def, const std::string& fit_locals = "") {
  return R"(
class Model {
public:
  std::vector<double> totals = std::vector<double>(5, 0.0);
  double* counts = nullptr;
  int K = 5;
  void fit(rotor::Dataset<Rating>& ratings);
private:
)" + helper_decl +
         R"(
};
void Model::fit(rotor::Dataset<Rating>& ratings) {
)" + fit_locals +
         R"(
#pragma rotor parallel_for buffered(totals, counts)
  for (const Rating& r : ratings) {
)" + body +
         R"(
  }
}
)" + helper_def;
}

const char* kStepDef = R"(
int Model::step(int u, float v) {
  int t = u % K;
  totals[t] += v;
  for (int j = 0; j < 4; ++j) counts[u * 4 + j] += v * totals[j];
  return t;
}
)";

TEST(HelperClones, MemberHelperUsingABufferedVectorAndPointerIsCloned) {
  FileResult r = lower(model("  int step(int u, float v);",
                             "    int t = step(r.user, r.value);\n    totals[t] += 1;", kStepDef));
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.loops.size(), 1u);
  EXPECT_EQ(r.loops[0].plan.kind, PlanKind::data_parallel) << escapes(r);
  const std::string& out = r.rewritten;
  const std::size_t buffers = out.find("auto counts = ::rotor::codegen::buffered_elements(");
  const std::size_t clone =
      out.find("auto step = [&](int u, float v) -> int {\n#line 22 \"t.cpp\"\n");
  ASSERT_NE(buffers, std::string::npos) << out;
  ASSERT_NE(clone, std::string::npos) << out;
  EXPECT_LT(buffers, clone); // the clone's `totals` and `counts` are the worker's buffers
  EXPECT_TRUE(has(out, "  for (int j = 0; j < 4; ++j) counts[u * 4 + j] += v * totals[j];\n"));
  EXPECT_TRUE(has(out, "int Model::step(int u, float v) {")) << "the helper itself stays";
}

TEST(HelperClones, InlineVoidHelperCalledTwiceIsClonedOnce) {
  FileResult r = lower(R"(
struct Model {
  std::vector<double> totals = std::vector<double>(5, 0.0);
  void add(int t, double v) { totals[t % 5] += v; }
  void fit(rotor::Dataset<Rating>& ratings) {
#pragma rotor parallel_for buffered(totals)
    for (const Rating& r : ratings) {
      add(r.user, r.value);
      add(r.item, 1.0);
    }
  }
};
)");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.loops[0].plan.kind, PlanKind::data_parallel) << escapes(r);
  const std::string clone = "auto add = [&](int t, double v) -> void {";
  const std::size_t first = r.rewritten.find(clone);
  ASSERT_NE(first, std::string::npos) << r.rewritten;
  EXPECT_EQ(r.rewritten.find(clone, first + 1), std::string::npos) << r.rewritten;
}

TEST(HelperClones, PrivateRandomInTheCloneIsTheWorkersGenerator) {
  FileResult r = lower(R"(
#include <cstdlib>
struct Model {
  std::vector<double> totals = std::vector<double>(5, 0.0);
  void add(int t) { totals[(t + random()) % 5] += 1.0; }
  void fit(rotor::Dataset<Rating>& ratings) {
#pragma rotor parallel_for buffered(totals) private(random)
    for (const Rating& r : ratings) {
      add(r.user);
    }
  }
};
)");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.loops[0].plan.kind, PlanKind::data_parallel) << escapes(r);
  EXPECT_TRUE(has(r.rewritten, "totals[(t + ::rotor::codegen::worker_random()) % 5] += 1.0; \n};"))
      << r.rewritten;
}

struct Refused {
  const char* name;
  std::string source;
  const char* reason;
};

// The nearest shapes that must stay serial: each names the helper and why it is not cloned.
std::vector<Refused> refusals() {
  const std::string call = "    step(r.user, r.value);";
  const std::string decl = "  int step(int u, float v);";
  return {
      // A virtual call is not followed at all (the analysis refuses it before any clone).
      {"virtual", model("  virtual int step(int u, float v);", call, kStepDef),
       "virtual call to 'step'"},
      {"static local", model(decl, call, R"(
int Model::step(int u, float v) { static int calls = 0; ++calls; totals[u % 5] += v; return 0; }
)"),
       "has the static local 'calls'"},
      {"explicit this in helper", model(decl, call, R"(
int Model::step(int u, float v) { this->totals[u % 5] += v; return 0; }
)"),
       "names it other than by its own name"},
      {"alias in helper", model(decl, call, R"(
int Model::step(int u, float v) { std::vector<double>& a = totals; a[u % 5] += v; return 0; }
)"),
       "'totals' (a std::vector) is used other than by subscript or size()"},
      {"helper of the helper", model(decl + "\n  void inner(int u);", call, R"(
void Model::inner(int u) { totals[u % 5] += 1; }
int Model::step(int u, float v) { inner(u); return static_cast<int>(v); }
)"),
       "'inner' is reached through another function"},
      {"recursive", model(decl, call, R"(
int Model::step(int u, float v) { totals[u % 5] += v; return u > 0 ? step(u - 1, v) : 0; }
)"),
       "recursive call to 'step'"},
      {"explicit object call", model(decl, "    this->step(r.user, r.value);", kStepDef),
       "is called through an object or a qualified name"},
      {"qualified call", model(decl, "    Model::step(r.user, r.value);", kStepDef),
       "is called through an object or a qualified name"},
      {"overloads", model(decl + "\n  int step(int u);", call, R"(
int Model::step(int u) { return u; }
int Model::step(int u, float v) { totals[u % 5] += v; return 0; }
)"),
       "has overloads"},
      {"template",
       model("  template <class T> int step(int u, T v) { totals[u % 5] += v; "
             "return 0; }",
             call, ""),
       "is a template or a member of one"},
      {"default argument", model("  int step(int u, float v = 1);", call, R"(
int Model::step(int u, float v) { totals[u % 5] += v; return 0; }
)"),
       "has a default argument"},
      {"const helper",
       model("  int step(int u, float v) const;", call + "\n    totals[0] += 1;", R"(
int Model::step(int u, float v) const { return static_cast<int>(totals[u % 5] + v); }
)"),
       "is const, volatile or &-qualified"},
      {"local named like a member", model(decl, call, kStepDef, "  const int K = 3; (void)K;"),
       "uses 'K', which names another variable or type where the loop is"},
      {"declaration between", model(decl, call, R"(
static int wrap(int u) { return u % 5; }
int Model::step(int u, float v) { totals[wrap(u)] += v; return 0; }
)"),
       "'wrap' is declared at line"},
      {"program macro", model(decl, call, R"(
#define SLOT(u) ((u) % 5)
int Model::step(int u, float v) { totals[SLOT(u)] += v; return 0; }
)"),
       "uses the macro 'SLOT', which the program defines"},
      {"size of the container", model(decl, call, R"(
int Model::step(int u, float v) { totals[u % (sizeof(totals) / 8)] += v; return 0; }
)"),
       "takes the type or size of 'totals'"},
      {"local class", model(decl, call, R"(
int Model::step(int u, float v) { struct Slot { int at; }; totals[Slot{u % 5}.at] += v; return 0; }
)"),
       "defines the class 'Slot'"},
      {"function name", model(decl, call, R"(
int Model::step(int u, float v) { totals[u % 5] += v; return __func__[0]; }
)"),
       "uses '__func__'"},
      {"preprocessor directive", model(decl, call, R"(
int Model::step(int u, float v) {
#ifdef NEVER
  totals[0] = 0;
#endif
  totals[u % 5] += v;
  return 0;
}
)"),
       "holds a preprocessor directive"},
  };
}

// One translation unit, each shape in its own namespace: one parse for all of them.
TEST(HelperClones, NearestShapesStaySerialWithTheReason) {
  const std::vector<Refused> cases = refusals();
  std::string source;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    source += "namespace case_" + std::to_string(i) + " {\n" + cases[i].source + "\n}\n";
  }
  FileResult r = lower(source);
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.loops.size(), cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(r.loops[i].plan.kind, PlanKind::serial) << cases[i].name << "\n" << escapes(r, i);
    EXPECT_TRUE(has(escapes(r, i), cases[i].reason)) << cases[i].name << "\n" << escapes(r, i);
  }
  EXPECT_FALSE(has(r.rewritten, "auto step = [&]")) << r.rewritten;
}

// The buffered name is the function's own parameter: the helper's `totals` (the member) is another
// container, which a clone would turn into the parameter's buffer.
TEST(HelperClones, BufferedLocalNamedLikeTheHelpersMemberStaysSerial) {
  FileResult r = lower(R"(
struct Model {
  std::vector<double> totals = std::vector<double>(5, 0.0);
  void add(int u) { totals[u % 5] += 1; }
  void fit(rotor::Dataset<Rating>& ratings, std::vector<double>& totals) {
#pragma rotor parallel_for buffered(totals)
    for (const Rating& r : ratings) {
      totals[r.user % 5] += 1;
      add(r.user);
    }
  }
};
)");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.loops[0].plan.kind, PlanKind::serial) << escapes(r);
  EXPECT_TRUE(has(escapes(r), "'add' (line 6) uses 'totals', which names another variable"))
      << escapes(r);
  EXPECT_FALSE(has(r.rewritten, "auto add = [&]")) << r.rewritten;
}

TEST(HelperClones, FreeFunctionAndBaseClassHelpersStaySerial) {
  FileResult r = lower(R"(
std::vector<double> g_totals(5);
static void bump(int u) { g_totals[u % 5] += 1; }
struct Base {
  std::vector<double> totals = std::vector<double>(5, 0.0);
  void add(int u) { totals[u % 5] += 1; }
};
struct Model : Base {
  void fit(rotor::Dataset<Rating>& ratings) {
#pragma rotor parallel_for buffered(totals)
    for (const Rating& r : ratings) {
      add(r.user);
    }
  }
};
void f(rotor::Dataset<Rating>& ratings) {
#pragma rotor parallel_for buffered(g_totals)
  for (const Rating& r : ratings) {
    bump(r.user);
  }
}
)");
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.loops.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(r.loops[i].plan.kind, PlanKind::serial) << escapes(r, i);
    EXPECT_TRUE(has(escapes(r, i), "is not a member function of the class of the function around "
                                   "the loop"))
        << escapes(r, i);
  }
}

} // namespace
