#include "common.h"

double train(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 2>& W,
             rotor::DistArray<float, 2>& H, float lr, float reg) {
  double loss = 0;
/* #pragma rotor parallel_for */
  ::rotor::codegen::run_loop(
      ::rotor::codegen::LoopSpec{
          "mf.cpp", 7, ::rotor::codegen::Kind::rotation,
          /*fields*/ {0, 1}, /*matrix*/ {}, /*base*/ ::rotor::codegen::Kind::serial,
          /*ordered*/ false, /*writes_records*/ false, ::rotor::codegen::Device::cpu,
          /*arrays*/ {
              {"W", ::rotor::codegen::Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}},
              {"H", ::rotor::codegen::Role::rotating, 1, true, {{1, 0, 0}, {-1, 0, 0}}}},
          /*reductions*/ {"loss"}, /*reason*/ "", /*may_throw*/ false},
      ratings, ::rotor::codegen::keys(&Rating::user, &Rating::item),
      std::tie(W, H), std::tie(loss),
      [&, lr, reg](const Rating& r, auto& W, auto& H, auto& loss) {
#line 8 "mf.cpp"
    auto w = W.row(r.user);
    auto h = H.row(r.item);
    float e = r.value - w.dot(h);
    loss += e * e;
    w += lr * (e * h - reg * w);
    h += lr * (e * w - reg * h);
  });
#line 15 "mf.cpp"
  return loss;
}

// added by rotor-cc: the program was built by rotor-cc
extern "C" __attribute__((weak)) const int rotor_cc_built_program = 1;
