// Ragged nests counted and keyed through read-only pointer chains (issue 16; PointerChains.h):
// `c->docs[m]->length` / `c->docs[m]->words[n]`, through members of `this`, pointers, references
// and arrays of objects, get their plan; the nearest shapes that must not (the chain written in the
// loop or a helper, its root changed, a key through another chain, a key that is not an integer)
// stay serial with their reason named. Each case is one small program.
#include "rotor/frontend/Frontend.h"

#include "FrontendTestOptions.h"

#include <gtest/gtest.h>

#include <string>

namespace {

using rotor::analysis::PlanKind;
using rotor::frontend::FileResult;
using rotor::frontend::Severity;
using rotor::frontend::test::options;

const char* kPrelude = R"(#include <vector>
struct Document { int* words; int length; double* weights; bool empty; };
struct Corpus { Document** docs; Document* flat; int M; };
)";

struct Case {
  const char* name;
  const char* source; ///< one annotated loop
  bool parallel;
  const char* text; ///< parallel: the plan's kind name; serial: a blocker (substring)
};

const Case kCases[] = {
    {"member_pointer_chain", R"(
struct Lda { Corpus* corpus; int M, K; std::vector<std::vector<int>> z, nw, nd;
  void sweep() {
#pragma rotor parallel_for
    for (int m = 0; m < M; m++)
      for (int n = 0; n < corpus->docs[m]->length; n++) {
        const int w = corpus->docs[m]->words[n];
        const int t = z[m][n];
        nw[w][t] -= 1; nd[m][t] -= 1; z[m][n] = (t + 1) % K; nw[w][(t + 1) % K] += 1; } } };)",
     true, "rotation"},
    {"reference_parameter_array_of_objects", R"(
void sweep(const Corpus& c, int M, std::vector<std::vector<long>>& nw,
           std::vector<std::vector<long>>& nd) {
#pragma rotor parallel_for
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < c.flat[m].length; ++n) {
      const int w = c.flat[m].words[n];
      nw[w][0] += 1; nd[m][0] += 1; } })",
     true, "rotation"},
    {"pointer_parameter_count_only", R"(
void count(Corpus* c, int M, std::vector<long>& tokens) {
#pragma rotor parallel_for
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < (int)c->docs[m]->length; ++n) { tokens[m] += n; } })",
     true, "one_d"},
    // keys read in a helper from the call's arguments (GibbsLDA++'s `sampling(m, n)`)
    {"key_in_helper_method", R"(
struct Lda { Corpus* corpus; int M, K; std::vector<std::vector<int>> z;
  std::vector<long> per_word;
  void count(int d, int i) { const int w = corpus->docs[d]->words[i]; per_word[w] += d; }
  void sweep() {
#pragma rotor parallel_for
    for (int m = 0; m < M; m++)
      for (int n = 0; n < corpus->docs[m]->length; n++) { count(m, n); } } };)",
     true, "one_d"},
    // a T** table whose row m is as long as m's count: z[m][n] in every iteration proves it
    // (docs/design/containers.md, "Ragged rows of a T** table"); GibbsLDA++'s sampling(m, n)
    {"ragged_table_in_helper", R"(
struct Lda { Corpus* corpus; int M, K; int** z; std::vector<long> per_word;
  int sampling(int m, int n) { const int t = z[m][n]; per_word[corpus->docs[m]->words[n]] += t;
    return (t + 1) % K; }
  void sweep() {
#pragma rotor parallel_for
    for (int m = 0; m < M; m++)
      for (int n = 0; n < corpus->docs[m]->length; n++) {
        int topic = sampling(m, n);
        z[m][n] = topic; } } };)",
     true, "rotation"},
    {"ragged_table_covers_conditional_access", R"(
void f(Corpus* c, int M, long** acc) {
#pragma rotor parallel_for
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < c->docs[m]->length; ++n) {
      acc[m][n] = acc[m][n] * 3 + n;
      if (n % 2 == 0) { acc[m][n] += 1; } } })",
     true, "one_d"},
    // ---- must stay serial ----
    {"helper_changes_its_index", R"(
struct Lda { Corpus* corpus; int M; std::vector<long> per_word;
  void count(int d, int i) { i = i / 2; per_word[corpus->docs[d]->words[i]] += d; }
  void sweep() {
#pragma rotor parallel_for
    for (int m = 0; m < M; m++)
      for (int n = 0; n < corpus->docs[m]->length; n++) { count(m, n); } } };)",
     false, "reads through 'words'"},
    {"helper_called_with_another_index", R"(
struct Lda { Corpus* corpus; int M; std::vector<long> per_word;
  void count(int d, int i) { per_word[corpus->docs[d]->words[i]] += d; }
  void sweep() {
#pragma rotor parallel_for
    for (int m = 0; m < M; m++)
      for (int n = 0; n < corpus->docs[m]->length; n++) { count(m, n / 2); } } };)",
     false, "reads through 'words'"},
    {"helper_of_another_object", R"(
struct Lda { Corpus* corpus; int M; std::vector<long> per_word; Lda* other;
  void count(int d, int i, std::vector<long>& pw) { pw[corpus->docs[d]->words[i]] += d; }
  void sweep() {
#pragma rotor parallel_for
    for (int m = 0; m < M; m++)
      for (int n = 0; n < corpus->docs[m]->length; n++) { other->count(m, n, per_word); } } };)",
     false, "reads through 'words'"},
    {"words_written_through_chain", R"(
void f(Corpus* c, int M, std::vector<long>& per_word) {
#pragma rotor parallel_for
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < c->docs[m]->length; ++n) {
      per_word[c->docs[m]->words[n]] += 1; c->docs[m]->words[n] = 0; } })",
     false, "writes through 'words'"},
    {"length_written_through_chain", R"(
void f(Corpus* c, int M, std::vector<long>& tokens) {
#pragma rotor parallel_for
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < c->docs[m]->length; ++n) { tokens[m] += 1; c->docs[m]->length = n; } })",
     false, "whose target Rotor cannot tell"},
    {"chain_written_in_helper", R"(
struct Lda { Corpus* corpus; int M; std::vector<long> tokens;
  void drop(int m) { corpus->docs[m] = nullptr; }
  void sweep() {
#pragma rotor parallel_for
    for (int m = 0; m < M; m++)
      for (int n = 0; n < corpus->docs[m]->length; n++) { tokens[m] += 1; drop(m); } } };)",
     false, "docs"},
    {"member_root_assigned_in_helper", R"(
struct Lda { Corpus* corpus; Corpus* spare; int M; std::vector<long> tokens;
  void swap_corpus() { corpus = spare; }
  void sweep() {
#pragma rotor parallel_for
    for (int m = 0; m < M; m++)
      for (int n = 0; n < corpus->docs[m]->length; n++) { tokens[m] += 1; swap_corpus(); } } };)",
     false, "'corpus' is declared outside the loop and written in it"},
    {"chain_root_assigned", R"(
void f(Corpus* c, Corpus* other, int M, std::vector<long>& tokens) {
#pragma rotor parallel_for
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < c->docs[m]->length; ++n) { tokens[m] += 1; c = other; } })",
     false, "'c'"},
    {"key_through_another_chain", R"(
void f(Corpus* c, Corpus* other, int M, std::vector<long>& per_word) {
#pragma rotor parallel_for
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < c->docs[m]->length; ++n) { per_word[other->docs[m]->words[n]] += 1; } })",
     false, "reads through"},
    {"key_not_an_integer", R"(
void f(Corpus* c, int M, std::vector<long>& per_word) {
#pragma rotor parallel_for
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < c->docs[m]->length; ++n) {
      per_word[(int)c->docs[m]->weights[n]] += 1; } })",
     false, "reads through"},
    {"ragged_table_column_past_the_index", R"(
void f(Corpus* c, int M, long** acc) {
#pragma rotor parallel_for
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < c->docs[m]->length; ++n) { acc[m][n] = 1; acc[m][n + 1] += 1; } })",
     false,
     "'acc[m][n]' gives its rows the ragged length 'c->docs[m]->length', and "
     "'acc[m][n + 1]' is not an access 'acc[m][n]'"},
    {"ragged_table_only_under_a_condition", R"(
void f(Corpus* c, int M, long** acc) {
#pragma rotor parallel_for
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < c->docs[m]->length; ++n) { if (n % 2 == 0) { acc[m][n] += 1; } } })",
     false, "'acc[m][n]' is not made in every iteration"},
    {"ragged_table_after_continue", R"(
void f(Corpus* c, int M, long** acc) {
#pragma rotor parallel_for
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < c->docs[m]->length; ++n) { if (n % 3 == 2) continue; acc[m][n] += 1; } })",
     false, "'acc[m][n]' is not made in every iteration"},
    {"ragged_table_other_row", R"(
void f(Corpus* c, int M, long** acc) {
#pragma rotor parallel_for
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < c->docs[m]->length; ++n) { acc[m][n] = 1; acc[0][n] += 1; } })",
     false, "'acc[0][n]' is not an access 'acc[m][n]'"},
    {"ragged_table_mixed_with_column_loop", R"(
void f(Corpus* c, int M, int K, long** acc) {
#pragma rotor parallel_for
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < c->docs[m]->length; ++n) {
      acc[m][n] = 1;
      for (int k = 0; k < K; ++k) { acc[m][k] += 1; } } })",
     false, "'acc[m][k]' is not an access 'acc[m][n]'"},
    {"ragged_table_row_of_inner_index", R"(
void f(Corpus* c, int M, long** acc) {
#pragma rotor parallel_for
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < c->docs[m]->length; ++n) { acc[n][m] += 1; } })",
     false, "the extent of 'acc'"},
    {"bool_bound_is_no_nest", R"(
void f(Corpus* c, int M, std::vector<long>& tokens) {
#pragma rotor parallel_for
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < c->docs[m]->empty; ++n) { tokens[m] += 1; } })",
     false, "reads through"},
};

std::string everything_said(const FileResult& r) {
  std::string all;
  for (const auto& d : r.diagnostics) {
    all += d.message + "\n";
  }
  for (const auto& loop : r.loops) {
    all += loop.plan.reason + "\n";
    for (const auto& e : loop.model.escapes) {
      all += e.what + "\n";
    }
  }
  return all;
}

class PointerChains : public ::testing::TestWithParam<Case> {};

TEST_P(PointerChains, PlanOrBlocker) {
  const Case& c = GetParam();
  rotor::frontend::Options o = options();
  o.rewrite = false;
  const FileResult r =
      rotor::frontend::process_source(std::string(kPrelude) + c.source, "t.cpp", o);
  const std::string all = everything_said(r);
  for (const auto& d : r.diagnostics) {
    ASSERT_NE(d.severity, Severity::error) << c.name << ": " << all;
  }
  ASSERT_EQ(r.loops.size(), 1u) << c.name;
  const auto& plan = r.loops[0].plan;
  if (c.parallel) {
    EXPECT_EQ(std::string(rotor::analysis::to_string(plan.kind)), c.text) << c.name << ": " << all;
    return;
  }
  EXPECT_EQ(plan.kind, PlanKind::serial) << c.name << " got a parallel plan";
  EXPECT_NE(all.find(c.text), std::string::npos) << c.name << ": " << all;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return info.param.name;
}

INSTANTIATE_TEST_SUITE_P(Chains, PointerChains, ::testing::ValuesIn(kCases), case_name);

} // namespace
