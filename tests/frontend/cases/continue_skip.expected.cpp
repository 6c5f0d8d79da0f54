#include "common.h"

void positive(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 1>& bu) {
/* #pragma rotor parallel_for */
  ::rotor::codegen::run_loop(
      ::rotor::codegen::LoopSpec{
          "continue_skip.cpp", 5, ::rotor::codegen::Kind::one_d,
          /*fields*/ {0}, /*matrix*/ {}, /*base*/ ::rotor::codegen::Kind::serial,
          /*ordered*/ false, /*writes_records*/ false, ::rotor::codegen::Device::cpu,
          /*arrays*/ {
              {"bu", ::rotor::codegen::Role::partitioned, 0, true, {{0, 0, 0}}}},
          /*reductions*/ {}, /*reason*/ "", /*may_throw*/ false},
      ratings, ::rotor::codegen::keys(&Rating::user, &Rating::item),
      std::tie(bu), std::tie(),
      [&](const Rating& r, auto& bu) {
#line 6 "continue_skip.cpp"
    if (r.value <= 0) {
      return;
    }
    bu[r.user] += r.value;
  });
#line 11 "continue_skip.cpp"
}

// added by rotor-cc: the program was built by rotor-cc
extern "C" __attribute__((weak)) const int rotor_cc_built_program = 1;
