#include "common.h"

#include <Eigen/Core>

// Eigen matrices as parameter arrays: row-major and column-major, `(i, j)`, `.row(i)`,
// `.col(j)`, aliases of rows, and a vector indexed by a key.
using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

void factors(rotor::Dataset<Rating>& ratings, RowMajor& W, Eigen::MatrixXf& H,
             Eigen::VectorXf& bias, float lr) {
/* #pragma rotor parallel_for */
  {
    auto rotor_view_H = ::rotor::codegen::adopt_matrix(H);
    auto rotor_view_W = ::rotor::codegen::adopt_matrix(W);
    auto rotor_view_bias = ::rotor::codegen::adopt_matrix(bias);
    ::rotor::codegen::run_loop(
      ::rotor::codegen::LoopSpec{
          "eigen_rows.cpp", 12, ::rotor::codegen::Kind::rotation,
          /*fields*/ {0, 1}, /*matrix*/ {}, /*base*/ ::rotor::codegen::Kind::serial,
          /*ordered*/ false, /*writes_records*/ false, ::rotor::codegen::Device::cpu,
          /*arrays*/ {
              {"W", ::rotor::codegen::Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}},
              {"H", ::rotor::codegen::Role::rotating, 1, true, {{1, 0, 0}, {-1, 0, 0}}},
              {"bias", ::rotor::codegen::Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}}},
          /*reductions*/ {}, /*reason*/ "", /*may_throw*/ false, /*views*/ {"H", "W", "bias"}},
      ratings, ::rotor::codegen::keys(&Rating::user, &Rating::item),
      std::tie(rotor_view_W, rotor_view_H, rotor_view_bias), std::tie(),
      [&, lr](const Rating& r, auto& /*W*/, auto& /*H*/, auto& /*bias*/) {
#line 13 "eigen_rows.cpp"
    auto w = W.row(r.user);
    auto h = H.col(r.item); // column-major: item's factors are a contiguous column
    const float e = r.value - w.dot(h.transpose()) - bias(r.user);
    w += lr * e * h.transpose();
    H(0, r.item) += lr * e;
    bias[r.user] += lr * e;
  }); }
#line 20 "eigen_rows.cpp"
}

void column_major_rows(rotor::Dataset<Rating>& ratings, Eigen::MatrixXd& U) {
/* #pragma rotor parallel_for */
  {
    auto rotor_view_U = ::rotor::codegen::adopt_matrix(U);
    ::rotor::codegen::run_loop(
      ::rotor::codegen::LoopSpec{
          "eigen_rows.cpp", 24, ::rotor::codegen::Kind::one_d,
          /*fields*/ {0}, /*matrix*/ {}, /*base*/ ::rotor::codegen::Kind::serial,
          /*ordered*/ false, /*writes_records*/ false, ::rotor::codegen::Device::cpu,
          /*arrays*/ {
              {"U", ::rotor::codegen::Role::partitioned, 0, true, {{-1, 0, 0}, {0, 0, 0}}}},
          /*reductions*/ {}, /*reason*/ "", /*may_throw*/ false, /*views*/ {"U"}},
      ratings, ::rotor::codegen::keys(&Rating::user, &Rating::item),
      std::tie(rotor_view_U), std::tie(),
      [&](const Rating& r, auto& /*U*/) {
#line 25 "eigen_rows.cpp"
    U.row(r.user) *= 0.5; // strided in memory: the view's second dimension
  }); }
#line 27 "eigen_rows.cpp"
}

void whole_matrix(rotor::Dataset<Rating>& ratings, Eigen::MatrixXf& M, Eigen::VectorXf& x) {
/* #pragma rotor parallel_for */
  ::rotor::codegen::run_loop(
      ::rotor::codegen::LoopSpec{
          "eigen_rows.cpp", 31, ::rotor::codegen::Kind::serial,
          /*fields*/ {}, /*matrix*/ {}, /*base*/ ::rotor::codegen::Kind::serial,
          /*ordered*/ false, /*writes_records*/ false, ::rotor::codegen::Device::cpu,
          /*arrays*/ {},
          /*reductions*/ {}, /*reason*/ "the loop body has a plain container Rotor cannot use as a parameter array ('M' (an Eigen::Matrix) is used other than by subscript or size() (M.setZero())) at eigen_rows.cpp:33:5", /*may_throw*/ false},
      ratings, ::rotor::codegen::keys(&Rating::user, &Rating::item),
      std::tie(), std::tie(),
      [&](const Rating& r) {
#line 32 "eigen_rows.cpp"
    M.row(r.user) += r.value * x.transpose();
    M.setZero(); // the whole matrix: serial
  });
#line 35 "eigen_rows.cpp"
}

// An ALS-style solve on matrices of the body's own (`A.noalias() += ...` on a local writes only
// the local): one_d by user.
void local_solve(rotor::Dataset<Rating>& ratings, RowMajor& U, const Eigen::MatrixXf& V) {
/* #pragma rotor parallel_for */
  {
    auto rotor_view_U = ::rotor::codegen::adopt_matrix(U);
    ::rotor::codegen::run_loop(
      ::rotor::codegen::LoopSpec{
          "eigen_rows.cpp", 41, ::rotor::codegen::Kind::one_d,
          /*fields*/ {0}, /*matrix*/ {}, /*base*/ ::rotor::codegen::Kind::serial,
          /*ordered*/ false, /*writes_records*/ false, ::rotor::codegen::Device::cpu,
          /*arrays*/ {
              {"U", ::rotor::codegen::Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}}},
          /*reductions*/ {}, /*reason*/ "", /*may_throw*/ true, /*views*/ {"U"}},
      ratings, ::rotor::codegen::keys(&Rating::user, &Rating::item),
      std::tie(rotor_view_U), std::tie(),
      [&](const Rating& r, auto& /*U*/) {
#line 42 "eigen_rows.cpp"
    Eigen::MatrixXf A = Eigen::MatrixXf::Identity(V.cols(), V.cols());
    const Eigen::VectorXf v = V.row(r.item).transpose();
    A.noalias() += v * v.transpose();
    U.row(r.user).noalias() = (A * v).transpose();
  }); }
#line 47 "eigen_rows.cpp"
}

// added by rotor-cc: the program was built by rotor-cc
extern "C" __attribute__((weak)) const int rotor_cc_built_program = 1;
