#include "common.h"

#include <vector>

// Row vectors reached as a member through `this`, as a global, as a lambda's capture and through
// a helper's reference parameter: each is analysed like a DistArray.
std::vector<double> g_bias;
constexpr int kWidth = 4;

void add_row(std::vector<float>& table, int row, int width, float v) {
  for (int j = 0; j < width; ++j) {
    table[row * width + j] += v;
  }
}

struct Model {
  std::vector<float> user_rows;
  int k = 8;

  void train(rotor::Dataset<Rating>& ratings) {
/* #pragma rotor parallel_for */
    {
      auto rotor_view_g_bias = ::rotor::codegen::adopt_rows(g_bias, 4);
      auto rotor_view_user_rows = ::rotor::codegen::adopt_rows(this->user_rows, static_cast<std::int64_t>(k));
      ::rotor::codegen::run_loop(
        ::rotor::codegen::LoopSpec{
            "vector_rows_reached.cpp", 22, ::rotor::codegen::Kind::one_d,
            /*fields*/ {0}, /*matrix*/ {}, /*base*/ ::rotor::codegen::Kind::serial,
            /*ordered*/ false, /*writes_records*/ false, ::rotor::codegen::Device::cpu,
            /*arrays*/ {
                {"user_rows", ::rotor::codegen::Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}},
                {"g_bias", ::rotor::codegen::Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}}},
            /*reductions*/ {}, /*reason*/ "", /*may_throw*/ false, /*views*/ {"g_bias", "user_rows"}},
        ratings, ::rotor::codegen::keys(&Rating::user, &Rating::item),
        std::tie(rotor_view_user_rows, rotor_view_g_bias), std::tie(),
        [&](const Rating& r, auto& /*user_rows*/, auto& /*g_bias*/) {
#line 23 "vector_rows_reached.cpp"
      for (int j = 0; j < k; ++j) {
        user_rows[r.user * k + j] += r.value;
      }
      g_bias[r.user * kWidth + 1] += r.value;
    }); }
#line 28 "vector_rows_reached.cpp"
  }
};

void captured(rotor::Dataset<Rating>& ratings, std::vector<float>& items, int width) {
  auto epoch = [&]() {
/* #pragma rotor parallel_for */
    {
      auto rotor_view_items = ::rotor::codegen::adopt_rows(items, static_cast<std::int64_t>(width));
      ::rotor::codegen::run_loop(
        ::rotor::codegen::LoopSpec{
            "vector_rows_reached.cpp", 34, ::rotor::codegen::Kind::one_d,
            /*fields*/ {1}, /*matrix*/ {}, /*base*/ ::rotor::codegen::Kind::serial,
            /*ordered*/ false, /*writes_records*/ false, ::rotor::codegen::Device::cpu,
            /*arrays*/ {
                {"items", ::rotor::codegen::Role::partitioned, 1, true, {{1, 0, 0}, {-1, 0, 0}}}},
            /*reductions*/ {}, /*reason*/ "", /*may_throw*/ false, /*views*/ {"items"}},
        ratings, ::rotor::codegen::keys(&Rating::user, &Rating::item),
        std::tie(rotor_view_items), std::tie(),
        [&](const Rating& r, auto& /*items*/) {
#line 35 "vector_rows_reached.cpp"
      add_row(items, r.item, width, r.value);
    }); }
#line 37 "vector_rows_reached.cpp"
  };
  epoch();
}

// added by rotor-cc: the program was built by rotor-cc
extern "C" __attribute__((weak)) const int rotor_cc_built_program = 1;
