// The loop-model text format: what each statement builds, FILE:LINE errors, and round trips.

#include "TestModels.h"

#include "rotor/analysis/Plan.h"
#include "rotor/analysis/PlanText.h"

#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

namespace rotor::analysis {
namespace {

TEST(LoopModelText, Statements) {
  const LoopModel m = test::model_from("loop mf.cpp:41\n"
                                       "dataset user item   # keys\n"
                                       "ordered\n"
                                       "buffered H\n"
                                       "array W 2 float\n"
                                       "array H 2\n"
                                       "write W[user+1][:] @mf.cpp:42:7 \"W.row(r.user + 1)\"\n"
                                       "read H[item-s][?perm[item]] @43\n"
                                       "read H[c+2][-3]\n"
                                       "reduction loss\n"
                                       "reduction best max @mf.cpp:50\n"
                                       "escape control_flow break @mf.cpp:51\n");
  EXPECT_EQ(m.loc.file, "mf.cpp");
  EXPECT_EQ(m.loc.line, 41);
  EXPECT_EQ(m.space, SpaceKind::dataset);
  EXPECT_EQ(m.fields, (std::vector<std::string>{"user", "item"}));
  EXPECT_TRUE(m.ordered);
  EXPECT_EQ(m.buffered, std::vector<std::string>{"H"});
  ASSERT_EQ(m.arrays.size(), 2u);
  EXPECT_EQ(m.arrays[0].element, "float");
  ASSERT_EQ(m.accesses.size(), 3u);
  const Access& w = m.accesses[0];
  EXPECT_TRUE(w.write);
  EXPECT_EQ(w.text, "W.row(r.user + 1)");
  EXPECT_EQ(w.loc.file, "mf.cpp");
  EXPECT_EQ(w.loc.line, 42);
  EXPECT_EQ(w.loc.col, 7);
  EXPECT_EQ(w.subscripts[0].kind, Subscript::Kind::key);
  EXPECT_EQ(w.subscripts[0].field, 0);
  EXPECT_EQ(w.subscripts[0].offset, (Offset{1, ""}));
  EXPECT_EQ(w.subscripts[1].kind, Subscript::Kind::whole);
  const Access& h = m.accesses[1];
  EXPECT_EQ(h.loc.file, "t.loop");
  EXPECT_EQ(h.loc.line, 43);
  EXPECT_EQ(h.subscripts[0].offset, (Offset{0, "-s"}));
  EXPECT_EQ(h.subscripts[1].kind, Subscript::Kind::unknown);
  EXPECT_EQ(h.subscripts[1].text, "perm[item]");
  const Access& c = m.accesses[2];
  EXPECT_EQ(c.loc.line, 9); // no '@': its line in the model file
  EXPECT_EQ(c.subscripts[0].kind, Subscript::Kind::constant);
  EXPECT_EQ(c.subscripts[0].offset, (Offset{2, "c"}));
  EXPECT_EQ(c.subscripts[1].offset, (Offset{-3, ""}));
  ASSERT_EQ(m.reductions.size(), 2u);
  EXPECT_EQ(m.reductions[1].op, "max");
  ASSERT_EQ(m.escapes.size(), 1u);
  EXPECT_EQ(m.escapes[0].kind, Escape::Kind::control_flow);
  EXPECT_EQ(m.escapes[0].what, "break");
}

TEST(LoopModelText, IndexSpaceFields) {
  const LoopModel m = test::model_from("index_space 3\n");
  EXPECT_EQ(m.space, SpaceKind::index_space);
  EXPECT_EQ(m.fields, (std::vector<std::string>{"i0", "i1", "i2"}));
}

struct ErrorCase {
  const char* name;
  const char* text;
  const char* message;
};

class LoopModelTextError : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(LoopModelTextError, NamesFileAndLine) {
  try {
    test::model_from(GetParam().text);
    FAIL() << "accepted";
  } catch (const LoopModelError& e) {
    EXPECT_EQ(std::string(e.what()), GetParam().message);
  }
}

const ErrorCase k_errors[] = {
    {"no_space", "array A 1\n", "t.loop: error: no 'dataset FIELD...' or 'index_space N' line"},
    {"two_spaces", "dataset u\nindex_space 1\n",
     "t.loop:2: error: a second iteration space ('dataset' or 'index_space')"},
    {"duplicate_field", "dataset u u\n", "t.loop:1: error: key field 'u' listed twice"},
    {"bad_rank", "dataset u\narray A x\n",
     "t.loop:2: error: rank 'x' of array 'A' is not a number from 1 to 8"},
    {"duplicate_array", "dataset u\narray A 1\narray A 1\n",
     "t.loop:3: error: array 'A' declared twice"},
    {"two_key_fields", "dataset u v\narray A 1\nwrite A[u+v]\n",
     "t.loop:3: error: cannot read subscript 'u+v': two key fields (expected FIELD, "
     "FIELD+OFFSET, CONSTANT, ':' or '?TEXT')"},
    {"negated_field", "dataset u\narray A 1\nwrite A[-u]\n",
     "t.loop:3: error: cannot read subscript '-u': a negated key field (expected FIELD, "
     "FIELD+OFFSET, CONSTANT, ':' or '?TEXT')"},
    {"unbalanced", "dataset u\narray A 1\nwrite A[u\n",
     "t.loop:3: error: unbalanced '[' in access 'A[u'"},
    {"access_before_space", "array A 1\nwrite A[0]\n",
     "t.loop:2: error: an access before the 'dataset' or 'index_space' line"},
    {"unterminated_text", "dataset u\narray A 1\nwrite A[u] \"oops\n",
     "t.loop:3: error: unterminated quoted text"},
    {"word_after_location", "dataset u\narray A 1\nwrite A[u] @3 extra\n",
     "t.loop:3: error: 'extra' after the location; the location comes last (before \"text\")"},
    {"index_space_zero", "index_space 0\n",
     "t.loop:1: error: index_space dimension '0' is not a number from 1 to 8"},
    {"huge_line", "dataset u\narray A 1\nwrite A[u] @x.cpp:99999999999\n",
     "t.loop:3: error: cannot read location '@x.cpp:99999999999' (expected @LINE, @FILE:LINE or "
     "@FILE:LINE:COL)"},
    {"huge_rank", "dataset u\narray A 99999999999\n",
     "t.loop:2: error: rank '99999999999' of array 'A' is not a number from 1 to 8"},
    {"reduction_without_name", "dataset u\nreduction\n",
     "t.loop:2: error: expected 'reduction NAME [OP]'"},
};

INSTANTIATE_TEST_SUITE_P(Errors, LoopModelTextError, ::testing::ValuesIn(k_errors),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(LoopModelText, MissingFile) {
  try {
    read_loop_model_file("no/such/file.loop");
    FAIL() << "accepted";
  } catch (const LoopModelError& e) {
    EXPECT_EQ(std::string(e.what()), "no/such/file.loop: error: cannot open the loop-model file");
  }
}

/// Every shipped model survives loop_model_to_text -> parse with the same plan.
TEST(LoopModelText, RoundTripKeepsPlans) {
  for (const char* name :
       {"sgd_mf", "mf_biases", "lda", "lda_buffered", "logreg", "logreg_buffered", "tensor_cp"}) {
    const std::string path = std::string(ROTOR_MODELS_DIR) + "/" + name + ".loop";
    const LoopModel m = read_loop_model_file(path);
    const LoopModel back = parse_loop_model(loop_model_to_text(m), path);
    EXPECT_EQ(loop_model_to_text(back), loop_model_to_text(m)) << name;
    EXPECT_EQ(plan_summary(back, plan_loop(back)), plan_summary(m, plan_loop(m))) << name;
  }
}

TEST(LoopModelText, RoundTripOffsetsAndEscapes) {
  const char* text = "loop a.cpp:3\nindex_space 2\nordered\narray A 2\n"
                     "write A[i0-1][i1+s-2] @a.cpp:4\nread A[c][-3] @a.cpp:5\nread A[-c+1][?p[i0]] "
                     "@a.cpp:6 \"A(1 - c, p[i])\"\nreduction r + @a.cpp:7\nescape unknown_call "
                     "@a.cpp:8 \"f(x)\"\n";
  const LoopModel m = test::model_from(text);
  EXPECT_EQ(loop_model_to_text(m), text);
}

TEST(ValidateLoopModel, Problems) {
  LoopModel m;
  m.fields = {"u", "u"};
  m.arrays = {{"A", 0, ""}, {"B", 1, ""}, {"B", 1, ""}};
  m.buffered = {"C"};
  Access a;
  a.array = "B";
  a.subscripts = {Subscript::key(5), Subscript::whole()};
  m.accesses.push_back(a);
  const std::vector<std::string> p = validate_loop_model(m);
  const std::vector<std::string> want = {
      "key field 'u' is declared twice",
      "array 'A' has rank 0 (must be at least 1)",
      "array 'B' is declared twice",
      "buffered(C) names no array of the loop",
      "access to 'B' has 2 subscripts, the array has rank 1",
      "access to 'B' uses key field 5, which does not exist",
  };
  EXPECT_EQ(p, want);
}

} // namespace
} // namespace rotor::analysis

namespace rotor::analysis {
namespace {

/// Damaged model files give LoopModelError or a model, never a crash or another exception; a
/// model that parses plans without throwing.
TEST(LoopModelText, DamagedFilesNeverCrash) {
  const std::string base = "loop a.cpp:3\ndataset u v\nordered\nbuffered B\narray A 2 float\n"
                           "array B 1\nwrite A[u+1][:] @a.cpp:4 \"A.row(u)\"\nread A[?p[v]][c-2]\n"
                           "write B[v]\nreduction r +\nescape unknown_call f() @a.cpp:9\n";
  const std::string alphabet = "[]:?@\"#+-0123456789999999uvABc \n";
  std::mt19937_64 rng(3);
  int parsed = 0;
  for (int i = 0; i < 5000; ++i) {
    std::string text = base;
    const int edits = std::uniform_int_distribution<int>(1, 4)(rng);
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = std::uniform_int_distribution<std::size_t>(0, text.size() - 1)(rng);
      const char c =
          alphabet[std::uniform_int_distribution<std::size_t>(0, alphabet.size() - 1)(rng)];
      switch (std::uniform_int_distribution<int>(0, 2)(rng)) {
      case 0:
        text.erase(at, 1);
        break;
      case 1:
        text.insert(at, 1, c);
        break;
      default:
        text[at] = c;
      }
    }
    try {
      const LoopModel m = parse_loop_model(text, "d.loop");
      plan_to_text(m, plan_loop(m));
      ++parsed;
    } catch (const LoopModelError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("d.loop", 0), 0u) << e.what();
    }
  }
  EXPECT_GT(parsed, 100);
}

} // namespace
} // namespace rotor::analysis
