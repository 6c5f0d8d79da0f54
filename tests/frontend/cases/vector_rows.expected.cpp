#include "common.h"

#include <vector>

// A std::vector used as rows of k floats (row-major flat), written through `key * k + j`.
void factors(rotor::Dataset<Rating>& ratings, std::vector<float>& W, std::vector<float>& H,
             int k) {
/* #pragma rotor parallel_for */
  {
    auto rotor_view_H = ::rotor::codegen::adopt_rows(H, static_cast<std::int64_t>(k));
    auto rotor_view_W = ::rotor::codegen::adopt_rows(W, static_cast<std::int64_t>(k));
    ::rotor::codegen::run_loop(
      ::rotor::codegen::LoopSpec{
          "vector_rows.cpp", 9, ::rotor::codegen::Kind::rotation,
          /*fields*/ {0, 1}, /*matrix*/ {}, /*base*/ ::rotor::codegen::Kind::serial,
          /*ordered*/ false, /*writes_records*/ false, ::rotor::codegen::Device::cpu,
          /*arrays*/ {
              {"W", ::rotor::codegen::Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}},
              {"H", ::rotor::codegen::Role::rotating, 1, true, {{1, 0, 0}, {-1, 0, 0}}}},
          /*reductions*/ {}, /*reason*/ "", /*may_throw*/ false, /*views*/ {"H", "W"}},
      ratings, ::rotor::codegen::keys(&Rating::user, &Rating::item),
      std::tie(rotor_view_W, rotor_view_H), std::tie(),
      [&, k](const Rating& r, auto& /*W*/, auto& /*H*/) {
#line 10 "vector_rows.cpp"
    float e = r.value;
    for (int j = 0; j < k; ++j) {
      e -= W[r.user * k + j] * H[r.item * k + j];
    }
    for (int j = 0; j < k; ++j) {
      W[r.user * k + j] += 0.01f * e * H[r.item * k + j];
      H[r.item * k + j] += 0.01f * e * W[r.user * k + j];
    }
  }); }
#line 19 "vector_rows.cpp"
}

// added by rotor-cc: the program was built by rotor-cc
extern "C" __attribute__((weak)) const int rotor_cc_built_program = 1;
