#include "common.h"

void sweep(rotor::IndexSpace<2>& grid, rotor::DistArray<double, 2>& A) {
/* #pragma rotor parallel_for ordered */
  ::rotor::codegen::run_loop(
      ::rotor::codegen::LoopSpec{
          "stencil_ordered.cpp", 5, ::rotor::codegen::Kind::wavefront,
          /*fields*/ {0, 1}, /*matrix*/ {}, /*base*/ ::rotor::codegen::Kind::serial,
          /*ordered*/ true, /*writes_records*/ false, ::rotor::codegen::Device::cpu,
          /*arrays*/ {
              {"A", ::rotor::codegen::Role::partitioned, 0, true, {{0, -1, 0}, {1, -1, 0}}}},
          /*reductions*/ {}, /*reason*/ "", /*may_throw*/ false},
      grid, ::rotor::codegen::index_keys<2>(),
      std::tie(A), std::tie(),
      [&](const ::rotor::Index<2>& rotor_point, auto& A) { auto [i, j] = rotor_point;
#line 6 "stencil_ordered.cpp"
    if (i > 0 && j > 0) {
      A(i, j) += 0.5 * (A(i - 1, j) + A(i, j - 1));
    }
  });
#line 10 "stencil_ordered.cpp"
}

// added by rotor-cc: the program was built by rotor-cc
extern "C" __attribute__((weak)) const int rotor_cc_built_program = 1;
