// Loop shapes of serial programs (issue 16 item 2): each accepted shape gets its plan, and the
// nearest shape the analysis must not accept stays serial (or fails) with its reason named.
// Each case is one small program; the blocker or error text is checked by substring.
#include "rotor/frontend/Frontend.h"

#include "FrontendTestOptions.h"

#include <gtest/gtest.h>

#include <string>

namespace {

using rotor::analysis::PlanKind;
using rotor::frontend::FileResult;
using rotor::frontend::Severity;
using rotor::frontend::test::options;

const char* kPrelude = R"(#include "common.h"
#include <cstddef>
#include <utility>
#include <vector>
)";

enum class Expect { parallel, serial, error };

struct Case {
  const char* name;
  const char* source; ///< one annotated loop
  Expect expect;
  const char* text; ///< parallel: the plan's kind name; serial: blocker; error: diagnostic
};

const Case kCases[] = {
    // ---- index loops over a member vector of the loop's object ----
    {"member_vector_explicit_this", R"(
struct S { std::vector<Rating> ratings; std::vector<long> bias;
  void f() {
#pragma rotor parallel_for
    for (int j = 0; j < this->ratings.size(); j++) { bias[this->ratings[j].user] += 1; } } };)",
     Expect::parallel, "one_d"},
    {"member_vector_implicit_this_writes_value", R"(
struct S { std::vector<Rating> ratings;
  void f() {
#pragma rotor parallel_for
    for (std::size_t j = 0; j < ratings.size(); ++j) { ratings[j].value *= 0.5f; } } };)",
     Expect::parallel, "independent"},
    {"member_vector_push_back", R"(
struct S { std::vector<Rating> ratings; std::vector<long> bias;
  void f() {
#pragma rotor parallel_for
    for (std::size_t j = 0; j < ratings.size(); ++j) {
      bias[ratings[j].user] += 1; if (j == 3) ratings.push_back(ratings[j]); } } };)",
     Expect::error, "may change the size of 'ratings'"},
    {"member_vector_resized_by_helper", R"(
struct S { std::vector<Rating> ratings; std::vector<long> bias;
  void grow() { ratings.resize(ratings.size() + 1); }
  void f() {
#pragma rotor parallel_for
    for (std::size_t j = 0; j < ratings.size(); ++j) { bias[ratings[j].user] += 1; grow(); } } };)",
     Expect::error, "('ratings.resize' in 'grow', which the loop calls)"},
    {"member_vector_assigned", R"(
struct S { std::vector<Rating> ratings; std::vector<long> bias;
  void f() {
#pragma rotor parallel_for
    for (std::size_t j = 0; j < ratings.size(); ++j) { bias[ratings[j].user] += 1; ratings = {}; } } };)",
     Expect::error, "may change the size of 'ratings'"},
    {"member_vector_of_other_object_cleared", R"(
struct S { std::vector<Rating> ratings; std::vector<long> bias;
  void f(S* other) {
#pragma rotor parallel_for
    for (std::size_t j = 0; j < ratings.size(); ++j) {
      bias[ratings[j].user] += 1; other->ratings.clear(); } } };)",
     Expect::error, "may change the size of 'ratings'"},
    {"member_vector_read_in_helper", R"(
struct S { std::vector<Rating> ratings; std::vector<long> bias;
  long next(std::size_t j) const { return j + 1 < ratings.size() ? ratings[j + 1].user : 0; }
  void f() {
#pragma rotor parallel_for
    for (std::size_t j = 0; j < ratings.size(); ++j) {
      ratings[j].value = next(j); bias[ratings[j].user] += 1; } } };)",
     Expect::serial, "('ratings[j + 1]' in 'next', which the loop calls)"},
    {"member_vector_of_other_object_read", R"(
struct S { std::vector<Rating> ratings;
  void f(const S& other) {
#pragma rotor parallel_for
    for (std::size_t j = 0; j < ratings.size(); ++j) { ratings[j].value = other.ratings[j].value; } } };)",
     Expect::serial, "is used inside the loop ('other.ratings[j]')"},
    {"member_vector_pointer_member_grows", R"(
struct S { std::vector<Rating> ratings; std::vector<Rating>* log = nullptr;
  float f() { float sum = 0;
#pragma rotor parallel_for
    for (std::size_t j = 0; j < ratings.size(); ++j) { sum += ratings[j].value; log->push_back(ratings[j]); }
    return sum; } };)",
     Expect::serial, "changes what 'log' points to"},
    {"member_vector_pointer_member_read", R"(
struct S { std::vector<Rating> ratings; std::vector<Rating>* all = nullptr;
  void f() {
#pragma rotor parallel_for
    for (std::size_t j = 0; j < ratings.size(); ++j) { ratings[j].value = (*all)[0].value; } } };)",
     Expect::serial, "reads 'all', which may name elements of the vector"},
    {"member_vector_key_written", R"(
struct S { std::vector<Rating> ratings; std::vector<long> bias;
  void f() {
#pragma rotor parallel_for
    for (std::size_t j = 0; j < ratings.size(); ++j) { bias[ratings[j].user] += 1; ratings[j].item = 0; } } };)",
     Expect::parallel, "one_d"}, // item is written, so it is not a key: one_d by user
    {"local_vector_pointer_grows", R"(
float f(std::vector<Rating>& tokens) { std::vector<Rating>* pv = &tokens; float sum = 0;
#pragma rotor parallel_for
  for (std::size_t j = 0; j < tokens.size(); ++j) { sum += tokens[j].value; pv->push_back(tokens[j]); }
  return sum; })",
     Expect::serial, "changes what 'pv' points to"},
    // ---- records that are std::pairs (nested) or aggregates with nested key structs ----
    {"pair_records_range_for", R"(
using Entry = std::pair<std::pair<int, int>, double>;
void f(std::vector<Entry>& ratings, std::vector<double>& bias) {
#pragma rotor parallel_for
  for (const Entry& e : ratings) { bias[e.first.first] += e.second; } })",
     Expect::parallel, "one_d"},
    {"pair_records_index_loop", R"(
using Entry = std::pair<std::pair<int, int>, double>;
void f(std::vector<Entry>& ratings, std::vector<double>& u, std::vector<double>& i) {
#pragma rotor parallel_for
  for (int j = 0; j < ratings.size(); j++) {
    u[ratings[j].first.first] += ratings[j].second; i[ratings[j].first.second] += 1; } })",
     Expect::parallel, "rotation"},
    {"nested_key_struct", R"(
struct Key { int user, item; }; struct Keyed { Key key; float value; };
void f(std::vector<Keyed>& v, std::vector<double>& u, std::vector<double>& i) {
#pragma rotor parallel_for
  for (Keyed& k : v) { u[k.key.user] += k.value; i[k.key.item] += 1; k.value = 0; } })",
     Expect::parallel, "rotation"},
    {"pair_key_head_written", R"(
using Entry = std::pair<std::pair<int, int>, double>;
void f(std::vector<Entry>& ratings, std::vector<double>& bias) {
#pragma rotor parallel_for
  for (Entry& e : ratings) { e.first = {e.first.second, e.first.first}; bias[e.first.first] += 1; } })",
     Expect::serial, "may touch the same element of 'bias'"},
    {"record_through_pointer_field_is_not_a_key", R"(
struct Node { int user; Node* next; };
void f(std::vector<Node>& v, std::vector<double>& counts) {
#pragma rotor parallel_for
  for (const Node& r : v) { counts[r.next->user] += 1; } })",
     Expect::serial, "reads through 'next'"}, // r.next->user is another record's user
    {"pair_with_const_member_refused", R"(
void f(std::vector<std::pair<const int, int>>& v, std::vector<double>& counts) {
#pragma rotor parallel_for
  for (const auto& e : v) { counts[e.first] += 1; } })",
     Expect::error, "not a rotor::Dataset, a rotor::IndexSpace or a std::vector of plain records"},
    // ---- integer-range loops: keys the index and read-only index vectors at it ----
    {"int_range_derived_keys", R"(
void f(const std::vector<int>& user_of, const std::vector<int>& item_of, std::vector<double>& W,
       std::vector<double>& H, int M) {
#pragma rotor parallel_for
  for (int m = 0; m < M; ++m) { W[user_of[m]] += 1.0; H[item_of[m]] += W.size() + M; } })",
     Expect::parallel, "rotation"},
    {"int_range_index_only", R"(
void f(std::vector<double>& out, int M) {
#pragma rotor parallel_for
  for (int m = 0; m < M; m++) { out[m] = m * 2.0; } })",
     Expect::parallel, "one_d"},
    {"int_range_key_through_local", R"(
void f(const std::vector<int>& user_of, std::vector<double>& W, int M) {
#pragma rotor parallel_for
  for (int m = 0; m < M; ++m) { const int u = user_of[m]; W[u] += 1.0; } })",
     Expect::parallel, "one_d"},
    {"int_range_member_index_vector", R"(
struct S { std::vector<int> user_of; std::vector<double> W;
  void f(int M) {
#pragma rotor parallel_for
    for (int m = 0; m < M; ++m) { W[this->user_of[m]] += 1.0; } } };)",
     Expect::parallel, "one_d"},
    {"int_range_index_vector_written", R"(
void f(std::vector<int>& user_of, std::vector<double>& W, int M) {
#pragma rotor parallel_for
  for (int m = 0; m < M; ++m) { W[user_of[m]] += 1.0; user_of[m] = 0; } })",
     Expect::serial, "the key 'user_of[m]' is read from 'user_of', which the loop may change"},
    {"int_range_index_vector_written_in_helper", R"(
std::vector<int> g_user_of;
void clobber(int m) { g_user_of[m] = 0; }
void f(std::vector<double>& W, int M) {
#pragma rotor parallel_for
  for (int m = 0; m < M; ++m) { W[g_user_of[m]] += 1.0; clobber(m); } })",
     Expect::serial, "the key 'g_user_of[m]' is read from 'g_user_of', which the loop may change"},
    // the same class: compared when the loop starts (codegen::unless_shared), serial if one
    {"int_range_index_vector_may_alias_written", R"(
void f(std::vector<int>& user_of, std::vector<int>& counts, int M) {
#pragma rotor parallel_for
  for (int m = 0; m < M; ++m) { counts[user_of[m]] += 1; } })",
     Expect::parallel, "one_d"},
    {"int_range_index_table_may_alias_written", R"(
void f(std::vector<std::vector<int>>& user_of, std::vector<std::vector<int>>& counts, int M) {
#pragma rotor parallel_for
  for (int m = 0; m < M; ++m) { counts[user_of[m][0]][0] += 1; } })",
     Expect::serial, "'user_of' is read and may be the same container as 'counts'"},
    {"int_range_neighbour_key", R"(
void f(const std::vector<int>& user_of, std::vector<double>& W, int M) {
#pragma rotor parallel_for
  for (int m = 0; m < M; ++m) { W[user_of[m]] += W[user_of[m] + 1]; } })",
     Expect::serial, "may touch the same element of 'W'"},
    // ---- plain records: trivially copyable, public fields, no base (constructors allowed) ----
    {"record_with_constructor", R"(
struct Pt { Pt(int c, float x) : cluster(c), x(x) {} int cluster; float x; };
void f(const std::vector<Pt>& v, std::vector<double>& sums) {
#pragma rotor parallel_for
  for (const Pt& p : v) { sums[p.cluster] += p.x; } })",
     Expect::parallel, "one_d"},
    {"record_with_private_field_refused", R"(
class Pt { public: int cluster; private: float x = 0; };
void f(const std::vector<Pt>& v, std::vector<double>& sums) {
#pragma rotor parallel_for
  for (const Pt& p : v) { sums[p.cluster] += 1; } })",
     Expect::error, "a std::vector of plain records"},
    {"record_with_base_refused", R"(
struct Base { int cluster; };
struct Pt : Base { float x; };
void f(const std::vector<Pt>& v, std::vector<double>& sums) {
#pragma rotor parallel_for
  for (const Pt& p : v) { sums[p.cluster] += p.x; } })",
     Expect::error, "a std::vector of plain records"},
    // ---- an index loop's index used beyond `v[i]` is one more key ----
    {"index_loop_index_is_key", R"(
struct P { float x, y; };
void f(const std::vector<P>& v, std::vector<std::size_t>& out) {
#pragma rotor parallel_for
  for (std::size_t i = 0; i < v.size(); ++i) { out[i] = v[i].x < v[i].y ? 1 : 0; } })",
     Expect::parallel, "one_d"},
    {"index_loop_index_and_field_keys", R"(
struct P { float x; int id; };
void f(const std::vector<P>& v, std::vector<double>& out, std::vector<double>& W) {
#pragma rotor parallel_for
  for (std::size_t i = 0; i < v.size(); ++i) { out[i] = v[i].x; W[v[i].id] += out[i]; } })",
     Expect::parallel, "rotation"},
    {"index_loop_index_neighbour", R"(
struct P { float x; };
void f(const std::vector<P>& v, std::vector<double>& out) {
#pragma rotor parallel_for
  for (std::size_t i = 0; i < v.size(); ++i) { out[i + 1] += v[i].x; out[i] -= 1; } })",
     Expect::serial, "may touch the same element of 'out'"},
    {"index_loop_index_through_helper", R"(
struct P { float x; };
void put(std::vector<double>& out, std::size_t at, double x) { out[at + 1] = x; }
void f(const std::vector<P>& v, std::vector<double>& out) {
#pragma rotor parallel_for
  for (std::size_t i = 0; i < v.size(); ++i) { put(out, i, v[i].x); out[i] += 1; } })",
     Expect::serial, "'out'"},
    {"int_range_literal_bound", R"(
void f(std::vector<double>& out) {
#pragma rotor parallel_for
  for (int m = 0; m < 100; ++m) { out[m] = m * 2.0; } })",
     Expect::parallel, "one_d"},
    {"int_range_constant_bound", R"(
constexpr int kUsers = 64;
const long kItems = 2 * kUsers;
void f(const std::vector<int>& user_of, std::vector<double>& W) {
#pragma rotor parallel_for
  for (long m = 0; m < kItems; ++m) { W[user_of[m]] += kUsers; } })",
     Expect::parallel, "one_d"},
    {"int_range_macro_bound", R"(
#define NUM_USERS 1000
void f(std::vector<double>& out) {
#pragma rotor parallel_for
  for (int m = 0; m < NUM_USERS; m++) { out[m] = 1.0; } })",
     Expect::parallel, "one_d"},
    {"int_range_global_variable_bound", R"(
int g_users = 10;
void f(std::vector<double>& out) {
#pragma rotor parallel_for
  for (int m = 0; m < g_users; m++) { out[m] = 1.0; } })",
     Expect::error, "the bound 'g_users' of an integer-range"},
    {"int_range_bound_written_in_loop", R"(
void f(std::vector<double>& out, int M) {
#pragma rotor parallel_for
  for (int m = 0; m < M; ++m) { out[m] = 1.0; if (m == 2) M = 3; } })",
     Expect::error, "the bound 'M' of an integer-range"},
    {"int_range_bound_address_taken", R"(
void f(std::vector<double>& out, int M) {
  int* p = &M;
#pragma rotor parallel_for
  for (int m = 0; m < M; ++m) { out[m] = 1.0; *p = 3; } })",
     Expect::error, "the bound 'M' of an integer-range"},
    {"int_range_bound_captured_by_reference", R"(
void f(std::vector<double>& out, int M) {
  auto shrink = [&] { M = 1; };
#pragma rotor parallel_for
  for (int m = 0; m < M; ++m) { out[m] = 1.0; shrink(); } })",
     Expect::error, "the bound 'M' of an integer-range"},
    {"int_range_bound_is_reference", R"(
void f(std::vector<double>& out, const int& M) {
#pragma rotor parallel_for
  for (int m = 0; m < M; ++m) { out[m] = 1.0; } })",
     Expect::error, "its condition must be 'i < v.size()' or 'i < n'"},
    // ---- a member bound: an integer member of the loop's object the loop does not write ----
    {"int_range_member_bound", R"(
struct S { int M = 0; std::vector<double> out;
  void f() {
#pragma rotor parallel_for
    for (int m = 0; m < M; ++m) { out[m] = 1.0; } } };)",
     Expect::parallel, "one_d"},
    {"int_range_member_bound_explicit_this", R"(
struct S { int M = 0; std::vector<int> user_of; std::vector<double> W;
  void f() {
#pragma rotor parallel_for
    for (int m = 0; m < this->M; m++) { W[user_of[m]] += 1.0 + M; } } };)",
     Expect::parallel, "one_d"},
    {"int_range_member_bound_written_in_loop", R"(
struct S { int M = 0; std::vector<double> out;
  void f() {
#pragma rotor parallel_for
    for (int m = 0; m < M; ++m) { out[m] = 1.0; if (m == 2) M = 3; } } };)",
     Expect::serial, "'M' is declared outside the loop and written in it"},
    {"int_range_member_bound_written_in_called_method", R"(
struct S { int M = 0; std::vector<double> out;
  void shrink() { --M; }
  void f() {
#pragma rotor parallel_for
    for (int m = 0; m < M; ++m) { out[m] = 1.0; shrink(); } } };)",
     Expect::serial, "'M' is declared outside the loop and written in it"},
    {"int_range_member_bound_reference_taken", R"(
void bump(int& n);
struct S { int M = 0; std::vector<double> out;
  void f() {
#pragma rotor parallel_for
    for (int m = 0; m < M; ++m) { out[m] = 1.0; bump(M); } } };)",
     Expect::serial, "'M'"},
    {"int_range_member_bound_address_taken", R"(
struct S { int M = 0; std::vector<double> out;
  void f() {
#pragma rotor parallel_for
    for (int m = 0; m < M; ++m) { int* p = &M; out[m] = *p; } } };)",
     Expect::serial, "'M'"},
    {"int_range_bound_member_of_other_object", R"(
struct Sizes { int M = 0; };
void f(Sizes& s, std::vector<double>& out) {
#pragma rotor parallel_for
  for (int m = 0; m < s.M; ++m) { out[m] = 1.0; } })",
     Expect::error, "its condition must be 'i < v.size()' or 'i < n'"},
    // ---- ragged nests: pairs (d, n); keys d and read-only integer tables at (d, n) ----
    {"ragged_size_bound", R"(
struct Lda { std::vector<std::vector<int>> docs, z; std::vector<std::vector<long>> nw, nd;
  void sweep(int D) {
#pragma rotor parallel_for
    for (int d = 0; d < D; ++d) {
      for (int n = 0; n < (int)docs[d].size(); ++n) {
        const int w = docs[d][n]; const int t = z[d][n];
        nw[w][t] -= 1; nd[d][t] -= 1; nw[w][(t + 1) % 5] += 1; nd[d][(t + 1) % 5] += 1;
        z[d][n] = (t + 1) % 5; } } } };)",
     Expect::parallel, "rotation"},
    {"ragged_tables_may_alias", R"(
void f(const std::vector<std::vector<int>>& docs, std::vector<std::vector<int>>& z,
       std::vector<std::vector<long>>& nw, int D) {
#pragma rotor parallel_for
  for (int d = 0; d < D; ++d) {
    for (int n = 0; n < (int)docs[d].size(); ++n) {
      const int w = docs[d][n]; nw[w][z[d][n]] += 1; z[d][n] = 1; } } })",
     Expect::serial, "'docs' is read and may be the same container as 'z'"},
    {"ragged_key_table_written_through_local", R"(
struct Lda { std::vector<std::vector<int>> docs; std::vector<int> len; std::vector<long> per_word;
  void sweep(int D) {
#pragma rotor parallel_for
    for (int d = 0; d < D; ++d)
      for (int n = 0; n < len[d]; ++n) {
        const int w = docs[d][n]; per_word[w] += 1; docs[d][n] = w + 1; } } };)",
     Expect::serial, "per_word"},
    {"ragged_length_vector_bound_member", R"(
struct Model { int D = 0; std::vector<int> len; std::vector<std::vector<int>> docs;
  std::vector<long> per_word;
  void f() {
#pragma rotor parallel_for
    for (int d = 0; d < D; d++)
      for (int n = 0; n < len[d]; n++) { per_word[docs[d][n]] += n; } } };)",
     Expect::parallel, "one_d"},
    // `v[d].length` (a vector of records) is no ragged bound: the loop is an integer range whose
    // body holds an ordinary loop, and words[d][n] is no key there.
    {"ragged_record_length_bound_is_no_nest", R"(
struct Doc { int length; int first; };
struct Model { int D = 0; std::vector<Doc> meta; std::vector<std::vector<int>> words;
  std::vector<long> per_word;
  void f() {
#pragma rotor parallel_for
    for (int d = 0; d < D; ++d)
      for (int n = 0; n < meta[d].length; ++n) { per_word[words[d][n]] += meta[d].first; } } };)",
     Expect::serial, "subscript 'words[d][n]' of the plain container"},
    {"ragged_inner_break_is_no_nest", R"(
void f(const std::vector<int>& len, const std::vector<int>& x, std::vector<double>& out, int D) {
#pragma rotor parallel_for
  for (int d = 0; d < D; ++d)
    for (int n = 0; n < len[d]; ++n) { if (x[d] > n) break; out[d] += n; } })",
     Expect::parallel, "one_d"},
    {"ragged_index_table_written", R"(
void f(std::vector<std::vector<int>>& docs, std::vector<long>& per_word, int D) {
#pragma rotor parallel_for
  for (int d = 0; d < D; ++d)
    for (std::size_t n = 0; n < docs[d].size(); ++n) { per_word[docs[d][n]] += 1; docs[d][n] = 0; } })",
     Expect::serial, "the key 'docs[d][n]' is read from 'docs', which the loop may change"},
    {"ragged_statement_beside_inner_loop", R"(
void f(const std::vector<std::vector<int>>& docs, std::vector<long>& per_word,
       std::vector<long>& seen, int D) {
#pragma rotor parallel_for
  for (int d = 0; d < D; ++d) {
    seen[d] += 1;
    for (std::size_t n = 0; n < docs[d].size(); ++n) { per_word[docs[d][n]] += 1; } } })",
     Expect::serial, "per_word"},
    {"ragged_bound_written", R"(
void f(const std::vector<std::vector<int>>& docs, std::vector<int>& len,
       std::vector<long>& per_word, int D) {
#pragma rotor parallel_for
  for (int d = 0; d < D; ++d)
    for (int n = 0; n < len[d]; ++n) { per_word[docs[d][n]] += 1; len[d] = 1; } })",
     Expect::serial,
     "the inner loop's bound 'len[d]' is read from 'len', which the loop may change"},
    {"ragged_bound_not_a_vector_is_no_nest", R"(
#include <map>
void f(const std::vector<std::vector<int>>& docs, std::map<int, int>& len,
       std::vector<long>& per_word, int D) {
#pragma rotor parallel_for
  for (int d = 0; d < D; ++d)
    for (int n = 0; n < len[d]; ++n) { per_word[docs[d][n]] += 1; } })",
     Expect::serial, "'len' is declared outside the loop and written in it"},
    {"ragged_inner_index_written", R"(
void f(const std::vector<std::vector<int>>& docs, std::vector<long>& per_word, int D) {
#pragma rotor parallel_for
  for (int d = 0; d < D; ++d)
    for (int n = 0; n < (int)docs[d].size(); ++n) { per_word[docs[d][n]] += 1; n += 1; } })",
     Expect::error, "the inner loop's index 'n' is written or aliased"},
    {"ragged_break_is_no_nest", R"(
void f(const std::vector<std::vector<int>>& docs, std::vector<long>& per_word, int D) {
#pragma rotor parallel_for
  for (int d = 0; d < D; ++d)
    for (int n = 0; n < (int)docs[d].size(); ++n) { if (docs[d][n] == 0) break; per_word[docs[d][n]] += 1; } })",
     Expect::serial, "subscript 'docs[d][n]' of the plain container"},
    {"ragged_neighbour_word", R"(
void f(const std::vector<std::vector<int>>& docs, std::vector<long>& per_word, int D) {
#pragma rotor parallel_for
  for (int d = 0; d < D; ++d)
    for (int n = 0; n + 1 < (int)docs[d].size(); ++n) { per_word[docs[d][n]] += 1; } })",
     Expect::serial, "per_word"},
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

bool has_error(const FileResult& r) {
  for (const auto& d : r.diagnostics) {
    if (d.severity == Severity::error) {
      return true;
    }
  }
  return !r.ok;
}

class LoopShapes : public ::testing::TestWithParam<Case> {};

TEST_P(LoopShapes, PlanBlockerOrError) {
  const Case& c = GetParam();
  rotor::frontend::Options o = options();
  o.rewrite = false;
  const FileResult r =
      rotor::frontend::process_source(std::string(kPrelude) + c.source, "t.cpp", o);
  const std::string all = everything_said(r);
  if (c.expect == Expect::error) {
    EXPECT_TRUE(has_error(r)) << c.name << ": no error; said:\n" << all;
    EXPECT_NE(all.find(c.text), std::string::npos) << c.name << ": " << all;
    return;
  }
  ASSERT_FALSE(has_error(r)) << c.name << ": " << all;
  ASSERT_EQ(r.loops.size(), 1u) << c.name;
  const auto& plan = r.loops[0].plan;
  if (c.expect == Expect::parallel) {
    EXPECT_EQ(std::string(rotor::analysis::to_string(plan.kind)), c.text) << c.name << ": " << all;
    return;
  }
  EXPECT_EQ(plan.kind, PlanKind::serial) << c.name << " got a parallel plan";
  EXPECT_NE(all.find(c.text), std::string::npos) << c.name << ": " << all;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return info.param.name;
}

INSTANTIATE_TEST_SUITE_P(Shapes, LoopShapes, ::testing::ValuesIn(kCases), case_name);

} // namespace
