#include "common.h"

static void add_error(double& total, float e) { total += e * e; }

double rmse_sum(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 1>& bu) {
  double total = 0;
/* #pragma rotor parallel_for */
  ::rotor::codegen::run_loop(
      ::rotor::codegen::LoopSpec{
          "helper_reduction.cpp", 8, ::rotor::codegen::Kind::independent,
          /*fields*/ {}, /*matrix*/ {}, /*base*/ ::rotor::codegen::Kind::serial,
          /*ordered*/ false, /*writes_records*/ false, ::rotor::codegen::Device::cpu,
          /*arrays*/ {
              {"bu", ::rotor::codegen::Role::replicated, -1, false, {{0, 0, 0}}}},
          /*reductions*/ {"total"}, /*reason*/ "", /*may_throw*/ false},
      ratings, ::rotor::codegen::keys(&Rating::user, &Rating::item),
      std::tie(bu), std::tie(total),
      [&](const Rating& r, auto& bu, auto& total) {
#line 9 "helper_reduction.cpp"
    add_error(total, r.value - bu[r.user]);
  });
#line 11 "helper_reduction.cpp"
  return total;
}

// added by rotor-cc: the program was built by rotor-cc
extern "C" __attribute__((weak)) const int rotor_cc_built_program = 1;
