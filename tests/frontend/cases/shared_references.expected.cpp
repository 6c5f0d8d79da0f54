#include "common.h"

#include <Eigen/Core>

#include <vector>

// Two reference parameters of one flat container class, one read and one written: rotor-cc
// cannot tell them apart, so the spec compares their memory when the loop starts
// (codegen::unless_shared) and the plan holds otherwise. A table of vectors cannot be compared
// this way: serial.
void shared_references(rotor::Dataset<Rating>& ratings, Eigen::MatrixXf& U, Eigen::MatrixXf& V,
                       std::vector<std::vector<float>>& T, const std::vector<std::vector<float>>& S) {
/* #pragma rotor parallel_for */
  {
    auto rotor_view_U = ::rotor::codegen::adopt_matrix(U);
    ::rotor::codegen::run_loop(
      ::rotor::codegen::unless_shared(::rotor::codegen::LoopSpec{
          "shared_references.cpp", 14, ::rotor::codegen::Kind::one_d,
          /*fields*/ {0}, /*matrix*/ {}, /*base*/ ::rotor::codegen::Kind::serial,
          /*ordered*/ false, /*writes_records*/ false, ::rotor::codegen::Device::cpu,
          /*arrays*/ {
              {"U", ::rotor::codegen::Role::partitioned, 0, true, {{-1, 0, 0}, {0, 0, 0}}}},
          /*reductions*/ {}, /*reason*/ "", /*may_throw*/ false, /*views*/ {"U"}},
          {{::rotor::codegen::memory_of(V), ::rotor::codegen::memory_of(U)}}),
      ratings, ::rotor::codegen::keys(&Rating::user, &Rating::item),
      std::tie(rotor_view_U), std::tie(),
      [&](const Rating& r, auto& /*U*/) {
#line 15 "shared_references.cpp"
    U(r.user, 0) += V(r.item, 0) * r.value;
  }); }
#line 17 "shared_references.cpp"
/* #pragma rotor parallel_for */
  ::rotor::codegen::run_loop(
      ::rotor::codegen::LoopSpec{
          "shared_references.cpp", 18, ::rotor::codegen::Kind::serial,
          /*fields*/ {}, /*matrix*/ {}, /*base*/ ::rotor::codegen::Kind::serial,
          /*ordered*/ false, /*writes_records*/ false, ::rotor::codegen::Device::cpu,
          /*arrays*/ {},
          /*reductions*/ {}, /*reason*/ "the loop body has a write to an outside variable that is not a reduction ('S' is read and may be the same container as 'T', which the loop writes (a reference to float elements): Rotor cannot tell them apart) at shared_references.cpp:19:21", /*may_throw*/ false},
      ratings, ::rotor::codegen::keys(&Rating::user, &Rating::item),
      std::tie(), std::tie(),
      [&](const Rating& r) {
#line 19 "shared_references.cpp"
    T[r.user][0] += S[r.item][0];
  });
#line 21 "shared_references.cpp"
}

// added by rotor-cc: the program was built by rotor-cc
extern "C" __attribute__((weak)) const int rotor_cc_built_program = 1;
