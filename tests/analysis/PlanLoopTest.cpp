// One family per plan rule: the loops (MF, LDA, LR, stencils, skews, tensors, shared
// embeddings, modulo/indirect subscripts, IndexSpace vs Dataset, escapes) and the plan each gets.

#include "TestModels.h"

#include "rotor/analysis/Advice.h"
#include "rotor/analysis/Plan.h"
#include "rotor/analysis/PlanText.h"

#include <gtest/gtest.h>

namespace rotor::analysis {
namespace {

struct Case {
  const char* name;
  const char* model;
  const char* summary; ///< plan_summary, or its start for serial plans (reasons are long)
};

class PlanCase : public ::testing::TestWithParam<Case> {};

TEST_P(PlanCase, Summary) {
  const LoopModel m = test::model_from(GetParam().model);
  const std::string got = plan_summary(m, plan_loop(m));
  const std::string want = GetParam().summary;
  if (want.rfind("serial", 0) == 0) {
    EXPECT_EQ(got.substr(0, want.size()), want) << got;
  } else {
    EXPECT_EQ(got, want);
  }
}

const char* const k_mf = "dataset user item\narray W 2\narray H 2\nwrite W[user][:]\n"
                         "write H[item][:]\nreduction loss\n";

const Case k_cases[] = {
    {"mf_rotation", k_mf, "rotation over (user, item); W partitioned by user, H rotating by item"},
    {"mf_read_only_h_one_d",
     "dataset user item\narray W 2\narray H 2\nwrite W[user][:]\nread H[item][:]\n",
     "one_d over (user); W partitioned by user"},
    {"mf_biases",
     "dataset user item\narray W 2\narray H 2\narray bu 1\narray bi 1\narray mu 1\nread mu[0]\n"
     "write W[user][:]\nwrite H[item][:]\nwrite bu[user]\nwrite bi[item]\nreduction loss\n",
     "rotation over (user, item); W partitioned by user, H rotating by item, bu partitioned by "
     "user, bi rotating by item"},
    {"lda_serial",
     "dataset doc word\narray dt 2\narray wt 2\narray tt 1\nwrite dt[doc][:]\nwrite wt[word][:]\n"
     "write tt[:]\n",
     "serial: write tt[:] at t.loop:7 in two iterations may touch the same element of 'tt'"},
    {"lda_buffered",
     "dataset doc word\nbuffered tt\narray dt 2\narray wt 2\narray tt 1\nwrite dt[doc][:]\n"
     "write wt[word][:]\nwrite tt[:]\n",
     "rotation over (doc, word), buffered (tt); dt partitioned by doc, wt rotating by word, tt "
     "buffered"},
    {"lr_unknown_subscript_serial", "dataset ex\narray w 1\nread w[?feature]\nwrite w[?feature]\n",
     "serial: read w[feature] at t.loop:3 and write w[feature] at t.loop:4 may touch"},
    {"lr_buffered_data_parallel",
     "dataset ex\nbuffered w\narray w 1\nread w[?feature]\nwrite w[?feature]\n",
     "data_parallel, buffered (w); w buffered"},
    {"stencil_1d_serial", "index_space 1\narray A 1\nwrite A[i0]\nread A[i0-1]\n",
     "serial: write A[i0] at t.loop:3 and read A[i0-1] at t.loop:4 may touch the same element of "
     "'A' (dependence (1))"},
    {"stencil_1d_other_field_one_d",
     "index_space 2\narray A 2\nwrite A[i0][i1]\nread A[i0-1][i1]\n",
     "one_d over (i1); A partitioned by i1"},
    {"ordered_stencil_2d_wavefront",
     "index_space 2\nordered\narray A 2\nwrite A[i0][i1]\nread A[i0-1][i1]\nread A[i0][i1-1]\n",
     "wavefront over (i0, i1); A partitioned by i0"},
    {"unordered_stencil_2d_wavefront",
     "index_space 2\narray A 2\nwrite A[i0][i1]\nread A[i0-1][i1]\nread A[i0][i1-1]\n",
     "wavefront over (i0, i1); A partitioned by i0"},
    {"ordered_skew_unimodular",
     "index_space 2\nordered\narray A 2\nwrite A[i0][i1]\nread A[i0-1][i1+1]\nread A[i0-1][i1]\n",
     "unimodular [[1, 0], [1, 1]] over (i0, i1), then wavefront; A partitioned by i0"},
    {"anti_diagonal_unimodular_one_d",
     "index_space 2\narray A 2\nwrite A[i0][i1]\nread A[i0-1][i1+1]\n",
     "unimodular [[1, 1], [0, 1]] over (i0, i1), then one_d; A partitioned by i0"},
    {"tensor_rotation_three_fields",
     "dataset i j k\narray A 2\narray B 2\narray C 2\nwrite A[i][:]\nwrite B[j][:]\nwrite "
     "C[k][:]\n",
     "rotation over (i, j, k); A partitioned by i, B rotating by j, C rotating by k"},
    {"tensor_ordered_serial",
     "dataset i j k\nordered\narray A 2\narray B 2\narray C 2\nwrite A[i][:]\nwrite B[j][:]\n"
     "write C[k][:]\n",
     "serial"},
    {"shared_embedding_serial",
     "dataset user item\narray E 2\nwrite E[user][:]\nwrite E[item][:]\n",
     "serial: write E[user][:] at t.loop:3 and write E[item][:] at t.loop:4 may touch the same "
     "element of 'E' (dependence (*, *))"},
    {"shared_embedding_read_only",
     "dataset user item\narray E 2\narray W 1\nread E[user][:]\n"
     "read E[item][:]\nwrite W[user]\n",
     "one_d over (user); W partitioned by user"},
    {"modulo_subscript_serial", "dataset u\narray A 1\nwrite A[?u%8]\n",
     "serial: write A[u%8] at t.loop:3 in two iterations may touch the same element of 'A' "
     "(dependence (*)); subscript 'u%8' is not a key field"},
    {"indirect_read_is_replicated",
     "dataset u\narray P 1\narray A 1\nread P[?perm[u]]\n"
     "write A[u]\n",
     "one_d over (u); A partitioned by u"},
    {"index_space_zero_independent", "index_space 2\narray A 2\nwrite A[i0][i1]\n",
     "independent; A local by i0"},
    {"dataset_zero_one_d", "dataset a b\narray A 2\nwrite A[a][b]\n",
     "one_d over (a); A partitioned by a"},
    {"read_only_independent", "dataset a\narray A 1\nread A[:]\nreduction s\n", "independent"},
    {"escape_unknown_call_serial",
     "dataset u\narray A 1\nwrite A[u]\nescape unknown_call log_progress() @x.cpp:12\n",
     "serial: the loop body has a call with unknown effects 'log_progress()' at x.cpp:12"},
    {"escape_outside_write_serial", "index_space 1\nescape outside_write best @x.cpp:7\n",
     "serial: the loop body has a write to an outside variable that is not a reduction 'best'"},
    {"constant_row_write_serial", "dataset u v\narray A 1\nwrite A[0]\n", "serial"},
    {"different_constant_rows_one_d", "dataset u\narray A 2\nwrite A[u][0]\nread A[u+1][1]\n",
     "one_d over (u); A partitioned by u"},
    {"buffered_only_read_is_independent", "dataset u\nbuffered A\narray A 1\nread A[u]\n",
     "independent; A buffered"},
};

INSTANTIATE_TEST_SUITE_P(Rules, PlanCase, ::testing::ValuesIn(k_cases),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(PlanLoop, MfDetails) {
  const LoopModel m = test::model_from(k_mf);
  const Plan p = plan_loop(m);
  ASSERT_EQ(p.kind, PlanKind::rotation);
  ASSERT_EQ(p.arrays.size(), 2u);
  EXPECT_TRUE(p.arrays[0].written);
  ASSERT_EQ(p.arrays[0].dims.size(), 2u);
  EXPECT_EQ(p.arrays[0].dims[0].field, 0);
  EXPECT_EQ(p.arrays[0].dims[1].field, -1);
  EXPECT_EQ(p.reductions, std::vector<std::string>{"loss"});
  ASSERT_EQ(p.dependences.size(), 2u);
  EXPECT_EQ(p.dependences[0].to_string(), "(0, *)");
}

TEST(PlanLoop, SerialNamesBlockingLocation) {
  const LoopModel m = test::model_from("dataset u\narray A 1\nread A[?x] @f.cpp:3\n"
                                       "write A[?x] @f.cpp:9\n");
  const Plan p = plan_loop(m);
  ASSERT_EQ(p.kind, PlanKind::serial);
  ASSERT_TRUE(p.blocking.has_value());
  EXPECT_EQ(p.blocking->file, "f.cpp");
  EXPECT_EQ(p.blocking->line, 9); // the write of the pair
}

TEST(PlanLoop, FootprintSpansOffsets) {
  const LoopModel m =
      test::model_from("index_space 2\narray A 2\nwrite A[i0][i1]\nread A[i0-1][i1+s]\n");
  const Plan p = plan_loop(m);
  ASSERT_EQ(p.arrays.size(), 1u);
  EXPECT_EQ(footprint_text(m, p.arrays[0].dims), "[i0-1..+0, :]");
}

TEST(PlanLoop, OrderedMfIsAWavefront) {
  // Key order (user, item): W's conflicts stay in one row of blocks, H's in one column, and both
  // run in ascending key order along the anti-diagonals.
  const LoopModel m = test::model_from(std::string("ordered\n") + k_mf);
  EXPECT_EQ(plan_summary(m, plan_loop(m)),
            "wavefront over (user, item); W partitioned by user, H rotating by item");
}

TEST(PlanLoop, OrderedRotationIsRefusedWithNote) {
  const LoopModel m = test::model_from("ordered\ndataset i j k\narray A 2\narray B 2\narray C 2\n"
                                       "write A[i][:]\nwrite B[j][:]\nwrite C[k][:]\n");
  const Plan p = plan_loop(m);
  EXPECT_EQ(p.kind, PlanKind::serial);
  ASSERT_FALSE(p.notes.empty());
  EXPECT_EQ(p.notes[0], "a rotation would be legal, but the loop is `ordered`");
}

TEST(PlanLoop, InvalidModelIsSerialNotACrash) {
  LoopModel m;
  m.fields = {"u"};
  m.arrays.push_back({"A", 1, "float"});
  Access a;
  a.array = "B";
  a.write = true;
  a.subscripts.push_back(Subscript::key(3));
  m.accesses.push_back(a);
  const Plan p = plan_loop(m);
  EXPECT_EQ(p.kind, PlanKind::serial);
  EXPECT_EQ(p.reason, "invalid loop model: access to undeclared array 'B'");
}

TEST(PlanLoop, Deterministic) {
  const LoopModel m = test::model_from(k_mf);
  EXPECT_EQ(plan_to_text(m, plan_loop(m)), plan_to_text(m, plan_loop(m)));
}

} // namespace
} // namespace rotor::analysis

namespace rotor::analysis {
namespace {

// Per-worker copies leave the plan alone; a private(...) variable marks the loop as no longer
// serial-equivalent in the notes and in the JSON (absent keys when a loop has no copies).
TEST(PlanLoop, PrivatesNoteAndJson) {
  LoopModel m = test::model_from(k_mf);
  const Plan without = plan_loop(m);
  EXPECT_EQ(plan_to_json(m, without).find("\"private\""), std::string::npos);
  m.privates.push_back({"p", false, {}});
  EXPECT_TRUE(m.serial_equivalent());
  m.privates.push_back({"rng", true, {}});
  EXPECT_FALSE(m.serial_equivalent());
  const Plan with = plan_loop(m);
  EXPECT_EQ(with.kind, without.kind);
  std::string notes;
  for (const std::string& n : with.notes) {
    notes += n + "\n";
  }
  EXPECT_NE(notes.find("'p' is per-iteration scratch"), std::string::npos) << notes;
  EXPECT_NE(notes.find("'rng' is private"), std::string::npos) << notes;
  EXPECT_NE(notes.find("no longer equivalent to a serial order"), std::string::npos) << notes;
  const std::string json = plan_to_json(m, with);
  EXPECT_NE(json.find("\"origin\": \"scratch\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"origin\": \"clause\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"serial_equivalent\": false"), std::string::npos) << json;
}

// The suggestion for an outside write names the first quoted name of the escape, not the text
// after an apostrophe ("the loop's bound 'M'" once gave "declare 's bound '").
TEST(EscapeSuggestion, NamesTheQuotedNameNotAnApostrophe) {
  LoopModel model = test::model_from("dataset ex\narray w 1\nwrite w[?f]\n");
  Escape e;
  e.kind = Escape::Kind::outside_write;
  e.what = "the loop's bound 'M' is written in the loop";
  model.escapes.push_back(e);
  const std::vector<std::string> advice = suggestions(model, plan_loop(model));
  ASSERT_FALSE(advice.empty());
  EXPECT_EQ(advice.front().rfind("declare 'M' inside the loop body", 0), 0u) << advice.front();
  model.escapes.front().what = "'it's' and 'x'"; // a quote no word follows ends the name
  const std::vector<std::string> second = suggestions(model, plan_loop(model));
  EXPECT_EQ(second.front().rfind("declare 'it's' inside", 0), 0u) << second.front();
}

} // namespace
} // namespace rotor::analysis
