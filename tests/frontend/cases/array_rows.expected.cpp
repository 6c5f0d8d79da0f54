#include "common.h"

#include <array>
#include <vector>

// Plain containers indexed by a key directly (rows of one element) and std::array tables.
std::array<float, 64> g_item_bias{};

struct Biases {
  std::array<double, 3 * 37> user_rows{}; // 37 users, rows of 3

  void fit(rotor::Dataset<Rating>& ratings, std::vector<float>& user_bias) {
/* #pragma rotor parallel_for */
    {
      auto rotor_view_user_bias = ::rotor::codegen::adopt_rows(user_bias, 1);
      auto rotor_view_user_rows = ::rotor::codegen::adopt_rows(this->user_rows, 3);
      ::rotor::codegen::run_loop(
        ::rotor::codegen::LoopSpec{
            "array_rows.cpp", 14, ::rotor::codegen::Kind::one_d,
            /*fields*/ {0}, /*matrix*/ {}, /*base*/ ::rotor::codegen::Kind::serial,
            /*ordered*/ false, /*writes_records*/ false, ::rotor::codegen::Device::cpu,
            /*arrays*/ {
                {"user_bias", ::rotor::codegen::Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}},
                {"user_rows", ::rotor::codegen::Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}}},
            /*reductions*/ {}, /*reason*/ "", /*may_throw*/ false, /*views*/ {"user_bias", "user_rows"}},
        ratings, ::rotor::codegen::keys(&Rating::user, &Rating::item),
        std::tie(rotor_view_user_bias, rotor_view_user_rows), std::tie(),
        [&](const Rating& r, auto& /*user_bias*/, auto& /*user_rows*/) {
#line 15 "array_rows.cpp"
      user_bias[r.user] += 0.1f * (r.value - user_bias[r.user]);
      for (int j = 0; j < 3; ++j) {
        user_rows[r.user * 3 + j] += r.value * j;
      }
    }); }
#line 20 "array_rows.cpp"
  }
};

void items(rotor::Dataset<Rating>& ratings) {
/* #pragma rotor parallel_for */
  {
    auto rotor_view_g_item_bias = ::rotor::codegen::adopt_rows(g_item_bias, 1);
    ::rotor::codegen::run_loop(
      ::rotor::codegen::LoopSpec{
          "array_rows.cpp", 25, ::rotor::codegen::Kind::one_d,
          /*fields*/ {1}, /*matrix*/ {}, /*base*/ ::rotor::codegen::Kind::serial,
          /*ordered*/ false, /*writes_records*/ false, ::rotor::codegen::Device::cpu,
          /*arrays*/ {
              {"g_item_bias", ::rotor::codegen::Role::partitioned, 1, true, {{1, 0, 0}, {-1, 0, 0}}}},
          /*reductions*/ {}, /*reason*/ "", /*may_throw*/ false, /*views*/ {"g_item_bias"}},
      ratings, ::rotor::codegen::keys(&Rating::user, &Rating::item),
      std::tie(rotor_view_g_item_bias), std::tie(),
      [&](const Rating& r, auto& /*g_item_bias*/) {
#line 26 "array_rows.cpp"
    g_item_bias[r.item] -= 0.01f * g_item_bias[r.item] * r.value;
  }); }
#line 28 "array_rows.cpp"
}

void modulo(rotor::Dataset<Rating>& ratings, std::array<float, 8>& buckets) {
/* #pragma rotor parallel_for */
  ::rotor::codegen::run_loop(
      ::rotor::codegen::LoopSpec{
          "array_rows.cpp", 32, ::rotor::codegen::Kind::serial,
          /*fields*/ {}, /*matrix*/ {}, /*base*/ ::rotor::codegen::Kind::serial,
          /*ordered*/ false, /*writes_records*/ false, ::rotor::codegen::Device::cpu,
          /*arrays*/ {},
          /*reductions*/ {}, /*reason*/ "write buckets[r.user % 8] at array_rows.cpp:33:5 in two iterations may touch the same element of 'buckets' (dependence (*, *)); subscript 'r.user % 8' of the plain container is not a row `key * stride + j` with one loop-invariant stride and j provably in [0, stride)", /*may_throw*/ false},
      ratings, ::rotor::codegen::keys(&Rating::user, &Rating::item),
      std::tie(), std::tie(),
      [&](const Rating& r) {
#line 33 "array_rows.cpp"
    buckets[r.user % 8] += r.value; // any two users may share a bucket: serial
  });
#line 35 "array_rows.cpp"
}

// added by rotor-cc: the program was built by rotor-cc
extern "C" __attribute__((weak)) const int rotor_cc_built_program = 1;
