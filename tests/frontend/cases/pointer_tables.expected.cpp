#include "common.h"

// Raw pointer tables (docs/design/containers.md, "Pointer tables"): a GibbsLDA++-style `int**`
// count table with rows allocated separately, a Funk-SVD-style flat `float*` factor table, a
// `double*` bias (rows of one element); the extent of each is bounded by accesses made in every
// iteration. Then a table whose only write is under a condition, which stays serial. (A pointer
// table the loop only reads is a read through an outside pointer: it blocks a loop that writes.)
struct Model {
  float* user_factors = nullptr; // users x K, one allocation

  void epoch(rotor::Dataset<Rating>& ratings, int** nw, double* item_bias, int K) {
/* #pragma rotor parallel_for */
    {
      auto rotor_view_item_bias = ::rotor::codegen::adopt_pointer_rows(item_bias, 1, {::rotor::codegen::rows_of_key(ratings, &Rating::item, 0)});
      auto rotor_view_nw = ::rotor::codegen::stage_pointer_table(nw, static_cast<std::int64_t>(K), {::rotor::codegen::rows_of_key(ratings, &Rating::item, 0)});
      auto rotor_view_user_factors = ::rotor::codegen::adopt_pointer_rows(this->user_factors, static_cast<std::int64_t>(K), {::rotor::codegen::rows_of_key(ratings, &Rating::user, 0)});
      ::rotor::codegen::run_loop(
        ::rotor::codegen::LoopSpec{
            "pointer_tables.cpp", 13, ::rotor::codegen::Kind::rotation,
            /*fields*/ {0, 1}, /*matrix*/ {}, /*base*/ ::rotor::codegen::Kind::serial,
            /*ordered*/ false, /*writes_records*/ false, ::rotor::codegen::Device::cpu,
            /*arrays*/ {
                {"user_factors", ::rotor::codegen::Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}},
                {"nw", ::rotor::codegen::Role::rotating, 1, true, {{1, 0, 0}, {-1, 0, 0}}},
                {"item_bias", ::rotor::codegen::Role::rotating, 1, true, {{1, 0, 0}, {-1, 0, 0}}}},
            /*reductions*/ {}, /*reason*/ "", /*may_throw*/ false, /*views*/ {"item_bias", "nw", "user_factors"}},
        ratings, ::rotor::codegen::keys(&Rating::user, &Rating::item),
        std::tie(rotor_view_user_factors, rotor_view_nw.array(), rotor_view_item_bias), std::tie(),
        [&, K](const Rating& r, auto& /*user_factors*/, auto& rotor_table_nw, auto& /*item_bias*/) { auto nw = ::rotor::codegen::staged_rows(rotor_view_nw, rotor_table_nw);
#line 14 "pointer_tables.cpp"
      float dot = 0.0f;
      for (int k = 0; k < K; ++k) {
        dot += user_factors[r.user * K + k] * static_cast<float>(nw[r.item][k]);
        user_factors[r.user * K + k] *= 0.99f;
        nw[r.item][k] += 1;
      }
      item_bias[r.item] += 0.01 * (r.value - dot - item_bias[r.item]);
    }); }
#line 22 "pointer_tables.cpp"
  }
};

void conditional(rotor::Dataset<Rating>& ratings, double* user_bias) {
/* #pragma rotor parallel_for */
  ::rotor::codegen::run_loop(
      ::rotor::codegen::LoopSpec{
          "pointer_tables.cpp", 27, ::rotor::codegen::Kind::serial,
          /*fields*/ {}, /*matrix*/ {}, /*base*/ ::rotor::codegen::Kind::serial,
          /*ordered*/ false, /*writes_records*/ false, ::rotor::codegen::Device::cpu,
          /*arrays*/ {},
          /*reductions*/ {}, /*reason*/ "the loop body has a plain container Rotor cannot use as a parameter array (the extent of 'user_bias' (a T* table) cannot be bounded: 'user_bias[r.user]' is not made in every iteration (it is under a condition, in an inner loop other than its column loop, in a helper called so, or the body or helper can end early), and no access made in every iteration covers its row) at pointer_tables.cpp:29:7", /*may_throw*/ false},
      ratings, ::rotor::codegen::keys(&Rating::user, &Rating::item),
      std::tie(), std::tie(),
      [&](const Rating& r) {
#line 28 "pointer_tables.cpp"
    if (r.value > 3.0f) {
      user_bias[r.user] += 1.0;
    }
  });
#line 32 "pointer_tables.cpp"
}

// added by rotor-cc: the program was built by rotor-cc
extern "C" __attribute__((weak)) const int rotor_cc_built_program = 1;
