// One family per rule of Dependence.cpp: which pairs conflict, and the vector each gives.

#include "TestModels.h"

#include "rotor/analysis/Plan.h"

#include <gtest/gtest.h>

namespace rotor::analysis {
namespace {

std::string vectors(const std::string& text) {
  std::string out;
  for (const Dependence& d : dependence_vectors(test::model_from(text))) {
    out += (out.empty() ? "" : " ") + d.array + d.to_string();
  }
  return out;
}

struct Case {
  const char* name;
  const char* model;
  const char* expected;
};

class DependenceCase : public ::testing::TestWithParam<Case> {};

TEST_P(DependenceCase, Vectors) {
  EXPECT_EQ(vectors(GetParam().model), GetParam().expected);
}

const Case k_cases[] = {
    {"mf", "dataset user item\narray W 2\narray H 2\nwrite W[user][:]\nwrite H[item][:]\n",
     "W(0, *) H(*, 0)"},
    {"read_read_is_no_dependence", "dataset u\narray A 1\nread A[u]\nread A[u+1]\n", ""},
    {"read_write_pair_and_write_self", "dataset u v\narray A 1\nread A[u]\nwrite A[u]\n",
     "A(0, *) A(0, *)"},
    {"offset_gives_distance", "index_space 1\narray A 1\nwrite A[i0]\nread A[i0-1]\n", "A(1)"},
    {"negative_distance_is_normalised",
     "index_space 2\narray A 2\nwrite A[i0][i1]\nread A[i0-1][i1+1]\n", "A(1, -1)"},
    {"index_space_zero_is_same_point", "index_space 2\narray A 2\nwrite A[i0][i1]\n", ""},
    {"dataset_zero_conflicts", "dataset a b\narray A 2\nwrite A[a][b]\n", "A(0, 0)"},
    {"different_constants_never_meet", "dataset u\narray A 1\nwrite A[0]\nread A[1]\n", "A(*)"},
    {"same_symbol_different_value", "dataset u\narray A 2\nwrite A[u][c]\nread A[u][c+1]\n",
     "A(0)"},
    {"different_symbols_may_meet", "dataset u\narray A 2\nwrite A[u][c]\nread A[u][d]\n",
     "A(0) A(0)"},
    {"symbolic_offsets_same_symbol", "index_space 1\narray A 1\nwrite A[i0+s]\nread A[i0+s-2]\n",
     "A(2)"},
    {"symbolic_offsets_different_symbols",
     "index_space 1\narray A 1\nwrite A[i0+s]\nread A[i0+t]\n", "A(*)"},
    {"contradictory_distances_no_dependence",
     "index_space 1\narray A 2\nwrite A[i0][i0]\nread A[i0+1][i0]\n", ""},
    {"two_fields_one_dimension_any", "dataset u v\narray E 2\nwrite E[u][:]\nwrite E[v][:]\n",
     "E(0, *) E(*, *) E(*, 0)"},
    {"unknown_subscript_any", "dataset u\narray A 1\nwrite A[?u%8]\n", "A(*)"},
    {"indirect_subscript_any", "dataset u v\narray A 1\nread A[u]\nwrite A[?perm[u]]\n",
     "A(*, *) A(*, *)"},
    {"whole_dimension_any", "dataset u\narray T 1\nwrite T[:]\n", "T(*)"},
    {"ordered_leading_any_is_nonneg", "dataset u v\nordered\narray H 2\nwrite H[v][:]\n",
     "H(+, 0)"},
    {"ordered_after_any_distance_becomes_any",
     "dataset u v\nordered\narray H 1\nwrite H[v]\nread H[v-1]\n", "H(+, 0) H(+, *)"},
    {"unordered_keeps_any", "dataset u v\narray H 1\nwrite H[v]\nread H[v-1]\n", "H(*, 0) H(*, 1)"},
    {"buffered_arrays_still_listed", "dataset u\nbuffered T\narray T 1\nwrite T[:]\n", "T(*)"},
};

INSTANTIATE_TEST_SUITE_P(Rules, DependenceCase, ::testing::ValuesIn(k_cases),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(Dependence, SourceAndSinkIndexAccesses) {
  auto deps = dependence_vectors(
      test::model_from("dataset u\narray A 1\narray B 1\nread B[u]\nread A[u]\nwrite A[u]\n"));
  ASSERT_EQ(deps.size(), 2u);
  EXPECT_EQ(deps[0].source, 1);
  EXPECT_EQ(deps[0].sink, 2);
  EXPECT_EQ(deps[1].source, 2);
  EXPECT_EQ(deps[1].sink, 2);
}

TEST(Dependence, EntryText) {
  DepEntry e;
  EXPECT_EQ(e.to_string(), "*");
  e.kind = DepEntry::Kind::nonneg;
  EXPECT_EQ(e.to_string(), "+");
  e.kind = DepEntry::Kind::distance;
  e.distance = -3;
  EXPECT_EQ(e.to_string(), "-3");
}

} // namespace
} // namespace rotor::analysis

namespace rotor::analysis {
namespace {

TEST(Dependence, HugeOffsetsAreUnknownNotOverflow) {
  LoopModel m = test::model_from("index_space 1\narray A 1\nwrite A[i0]\nread A[i0]\n");
  m.accesses[0].subscripts[0].offset.value = INT64_MAX;
  m.accesses[1].subscripts[0].offset.value = INT64_MIN;
  const auto deps = dependence_vectors(m);
  ASSERT_EQ(deps.size(), 1u);
  EXPECT_EQ(deps[0].to_string(), "(*)");
  EXPECT_EQ(plan_loop(m).kind, PlanKind::serial);
}

} // namespace
} // namespace rotor::analysis
