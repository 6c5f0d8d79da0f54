#include "common.h"

#include <vector>

// SGD matrix factorisation over a std::vector of ratings: the same keys and plan as over a
// rotor::Dataset<Rating> (mf.cpp), run through the inspector.
double train(std::vector<Rating>& ratings, rotor::DistArray<float, 2>& W,
             rotor::DistArray<float, 2>& H, float lr, float reg) {
  double loss = 0;
/* #pragma rotor parallel_for */
  {
    static ::rotor::codegen::Inspection<2> rotor_inspection;
    auto&& rotor_range = ratings;
    auto& rotor_iterations = rotor_inspection.records(rotor_range, &Rating::user, &Rating::item);
    ::rotor::codegen::run_loop(
      ::rotor::codegen::LoopSpec{
          "vector_records.cpp", 11, ::rotor::codegen::Kind::rotation,
          /*fields*/ {0, 1}, /*matrix*/ {}, /*base*/ ::rotor::codegen::Kind::serial,
          /*ordered*/ false, /*writes_records*/ false, ::rotor::codegen::Device::cpu,
          /*arrays*/ {
              {"W", ::rotor::codegen::Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}},
              {"H", ::rotor::codegen::Role::rotating, 1, true, {{1, 0, 0}, {-1, 0, 0}}}},
          /*reductions*/ {"loss"}, /*reason*/ "", /*may_throw*/ false},
      rotor_iterations, ::rotor::codegen::iteration_keys<2>(),
      std::tie(W, H), std::tie(loss),
      [&, lr, reg](const ::rotor::codegen::Iteration<2>& rotor_iteration, auto& W, auto& H, auto& loss) { const Rating& r = rotor_range[rotor_iteration.at];
#line 12 "vector_records.cpp"
    auto w = W.row(r.user);
    auto h = H.row(r.item);
    float e = r.value - w.dot(h);
    loss += e * e;
    w += lr * (e * h - reg * w);
    h += lr * (e * w - reg * h);
  }); }
#line 19 "vector_records.cpp"
  return loss;
}

// added by rotor-cc: the program was built by rotor-cc
extern "C" __attribute__((weak)) const int rotor_cc_built_program = 1;
