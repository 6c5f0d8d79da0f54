// Good shape: Eigen matrices as parameter arrays, with no change to the program: a row-major W
// written through `W.row(u)`, a column-major H through `H.col(i)` and `H(0, i)`, a vector bias
// through `bias(u)`, and a column-major U through `U.row(u)` (strided in memory: the view's
// second dimension). Each loop must be parallel (rotor-cc adopts the matrices' memory as
// DistArray views). The last loop also zeroes a whole matrix: it must stay serial.
#include "soundness.h"

#include <Eigen/Core>

using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

static void epoch(rotor::Dataset<Rating>& ratings, RowMajor& W, Eigen::MatrixXd& H,
                  Eigen::VectorXd& bias) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    auto w = W.row(r.user);
    auto h = H.col(r.item);
    const double e = r.value - w.dot(h.transpose()) - bias(r.user);
    w += 0.01 * e * h.transpose();
    H(0, r.item) += 0.01 * e;
    bias(r.user) += 0.01 * e;
  }
}

static void shrink(rotor::Dataset<Rating>& ratings, Eigen::MatrixXd& U) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    U.row(r.user) = U.row(r.user) * 0.5 + Eigen::RowVector3d::Constant(r.value);
  }
}

static void reset(rotor::Dataset<Rating>& ratings, Eigen::MatrixXd& M) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    M(r.user, 0) = M(r.user, 0) * 3 + r.item;
    if (r.item == 5) {
      M.setZero();
    }
  }
}

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  RowMajor W = RowMajor::Constant(37, 4, 0.1);
  Eigen::MatrixXd H = Eigen::MatrixXd::Constant(4, 29, 0.2);
  Eigen::VectorXd bias = Eigen::VectorXd::Zero(37);
  Eigen::MatrixXd U = Eigen::MatrixXd::Constant(37, 3, 1.0);
  Eigen::MatrixXd M = Eigen::MatrixXd::Constant(37, 2, 1.0);
  for (int it = 0; it < 3; ++it) {
    epoch(ratings, W, H, bias);
    shrink(ratings, U);
    reset(ratings, M);
  }
  snd::Hash h;
  h.bytes(W.data(), sizeof(double) * W.size());
  h.bytes(H.data(), sizeof(double) * H.size());
  h.bytes(bias.data(), sizeof(double) * bias.size());
  h.bytes(U.data(), sizeof(double) * U.size());
  h.bytes(M.data(), sizeof(double) * M.size());
  h.records(ratings);
  h.print();
  return 0;
}
