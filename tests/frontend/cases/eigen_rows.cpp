#include "common.h"

#include <Eigen/Core>

// Eigen matrices as parameter arrays: row-major and column-major, `(i, j)`, `.row(i)`,
// `.col(j)`, aliases of rows, and a vector indexed by a key.
using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

void factors(rotor::Dataset<Rating>& ratings, RowMajor& W, Eigen::MatrixXf& H,
             Eigen::VectorXf& bias, float lr) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    auto w = W.row(r.user);
    auto h = H.col(r.item); // column-major: item's factors are a contiguous column
    const float e = r.value - w.dot(h.transpose()) - bias(r.user);
    w += lr * e * h.transpose();
    H(0, r.item) += lr * e;
    bias[r.user] += lr * e;
  }
}

void column_major_rows(rotor::Dataset<Rating>& ratings, Eigen::MatrixXd& U) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    U.row(r.user) *= 0.5; // strided in memory: the view's second dimension
  }
}

void whole_matrix(rotor::Dataset<Rating>& ratings, Eigen::MatrixXf& M, Eigen::VectorXf& x) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    M.row(r.user) += r.value * x.transpose();
    M.setZero(); // the whole matrix: serial
  }
}

// An ALS-style solve on matrices of the body's own (`A.noalias() += ...` on a local writes only
// the local): one_d by user.
void local_solve(rotor::Dataset<Rating>& ratings, RowMajor& U, const Eigen::MatrixXf& V) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    Eigen::MatrixXf A = Eigen::MatrixXf::Identity(V.cols(), V.cols());
    const Eigen::VectorXf v = V.row(r.item).transpose();
    A.noalias() += v * v.transpose();
    U.row(r.user).noalias() = (A * v).transpose();
  }
}
