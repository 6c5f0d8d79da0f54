#include "common.h"

void on_gpu(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 2>& W,
            rotor::DistArray<float, 2>& H, float lr) {
/* #pragma rotor parallel_for device(gpu) */
  ::rotor::codegen::run_loop(
      ::rotor::codegen::LoopSpec{
          "device_gpu.cpp", 6, ::rotor::codegen::Kind::rotation,
          /*fields*/ {0, 1}, /*matrix*/ {}, /*base*/ ::rotor::codegen::Kind::serial,
          /*ordered*/ false, /*writes_records*/ false, ::rotor::codegen::Device::gpu,
          /*arrays*/ {
              {"W", ::rotor::codegen::Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}},
              {"H", ::rotor::codegen::Role::rotating, 1, true, {{1, 0, 0}, {-1, 0, 0}}}},
          /*reductions*/ {}, /*reason*/ "", /*may_throw*/ false},
      ratings, ::rotor::codegen::keys(&Rating::user, &Rating::item),
      std::tie(W, H), std::tie(),
      [ROTOR_DEVICE_CAPTURE] ROTOR_DEVICE_LAMBDA (const Rating& r, ::rotor::codegen::DeviceArray<decltype(W)> W, ::rotor::codegen::DeviceArray<decltype(H)> H) {
#line 7 "device_gpu.cpp"
    auto w = W.row(r.user);
    auto h = H.row(r.item);
    const float e = r.value - w.dot(h);
    w += lr * e * h;
    h += lr * e * w;
  });
#line 13 "device_gpu.cpp"
}

// A deduced loop variable and a reduction: the device body names the record type through
// decltype of the range and the reduction's type through decltype of its name.
double loss_on_gpu(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 2>& W,
                   rotor::DistArray<float, 2>& H) {
  double loss = 0;
/* #pragma rotor parallel_for device(gpu) */
  ::rotor::codegen::run_loop(
      ::rotor::codegen::LoopSpec{
          "device_gpu.cpp", 21, ::rotor::codegen::Kind::independent,
          /*fields*/ {}, /*matrix*/ {}, /*base*/ ::rotor::codegen::Kind::serial,
          /*ordered*/ false, /*writes_records*/ false, ::rotor::codegen::Device::gpu,
          /*arrays*/ {
              {"W", ::rotor::codegen::Role::replicated, -1, false, {{0, 0, 0}, {-1, 0, 0}}},
              {"H", ::rotor::codegen::Role::replicated, -1, false, {{1, 0, 0}, {-1, 0, 0}}}},
          /*reductions*/ {"loss"}, /*reason*/ "", /*may_throw*/ false},
      ratings, ::rotor::codegen::keys(&Rating::user, &Rating::item),
      std::tie(W, H), std::tie(loss),
      [ROTOR_DEVICE_CAPTURE] ROTOR_DEVICE_LAMBDA (const ::rotor::codegen::DeviceRecord<decltype(ratings)>& r, ::rotor::codegen::DeviceArray<decltype(W)> W, ::rotor::codegen::DeviceArray<decltype(H)> H, ::rotor::codegen::DeviceReduction<decltype(loss)>& loss) {
#line 22 "device_gpu.cpp"
    const float e = r.value - W.row(r.user).dot(H.row(r.item));
    loss += e * e;
  });
#line 25 "device_gpu.cpp"
  return loss;
}

// An array passed to a helper needs the DistArray itself: the device loop keeps the CPU body
// (generic parameters, by-reference capture) and runs on CPU workers.
void shrink(rotor::DistArray<float, 2>& A, std::int32_t row) {
  A.row(row) *= 0.5f;
}
void helper_on_gpu(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 2>& W) {
/* #pragma rotor parallel_for device(gpu) */
  ::rotor::codegen::run_loop(
      ::rotor::codegen::LoopSpec{
          "device_gpu.cpp", 35, ::rotor::codegen::Kind::one_d,
          /*fields*/ {0}, /*matrix*/ {}, /*base*/ ::rotor::codegen::Kind::serial,
          /*ordered*/ false, /*writes_records*/ false, ::rotor::codegen::Device::gpu,
          /*arrays*/ {
              {"W", ::rotor::codegen::Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}}},
          /*reductions*/ {}, /*reason*/ "", /*may_throw*/ false},
      ratings, ::rotor::codegen::keys(&Rating::user, &Rating::item),
      std::tie(W), std::tie(),
      [&](const Rating& r, auto& W) {
#line 36 "device_gpu.cpp"
    shrink(W, r.user);
  });
#line 38 "device_gpu.cpp"
}

// added by rotor-cc: the program was built by rotor-cc
extern "C" __attribute__((weak)) const int rotor_cc_built_program = 1;
