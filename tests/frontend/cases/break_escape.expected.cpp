#include "common.h"

void until_negative(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 1>& bu) {
/* #pragma rotor parallel_for */
  ::rotor::codegen::run_loop(
      ::rotor::codegen::LoopSpec{
          "break_escape.cpp", 5, ::rotor::codegen::Kind::serial,
          /*fields*/ {}, /*matrix*/ {}, /*base*/ ::rotor::codegen::Kind::serial,
          /*ordered*/ false, /*writes_records*/ false, ::rotor::codegen::Device::cpu,
          /*arrays*/ {
              {"bu", ::rotor::codegen::Role::local, -1, true, {{0, 0, 0}}}},
          /*reductions*/ {}, /*reason*/ "the loop body has control flow out of the loop body ('break' leaves the loop early) at break_escape.cpp:7:7", /*may_throw*/ false},
      ratings, ::rotor::codegen::keys(&Rating::user, &Rating::item),
      std::tie(bu), std::tie(),
      [&](const Rating& r, auto& bu) -> bool {
#line 6 "break_escape.cpp"
    if (r.value < 0) {
      return false;
    }
    bu[r.user] += r.value;
  return true; });
#line 11 "break_escape.cpp"
}

// added by rotor-cc: the program was built by rotor-cc
extern "C" __attribute__((weak)) const int rotor_cc_built_program = 1;
