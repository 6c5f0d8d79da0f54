#include "common.h"

#include <Eigen/Core>

#include <vector>

// Two reference parameters of one flat container class, one read and one written: rotor-cc
// cannot tell them apart, so the spec compares their memory when the loop starts
// (codegen::unless_shared) and the plan holds otherwise. A table of vectors cannot be compared
// this way: serial.
void shared_references(rotor::Dataset<Rating>& ratings, Eigen::MatrixXf& U, Eigen::MatrixXf& V,
                       std::vector<std::vector<float>>& T, const std::vector<std::vector<float>>& S) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    U(r.user, 0) += V(r.item, 0) * r.value;
  }
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    T[r.user][0] += S[r.item][0];
  }
}
