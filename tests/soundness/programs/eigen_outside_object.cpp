// Shape: an Eigen vector declared outside the loop, written through operator() in the body.
#include "soundness.h"

#include <Eigen/Core>

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 1> bu({37});
  Eigen::Matrix<std::int64_t, Eigen::Dynamic, 1> v = Eigen::Matrix<std::int64_t, Eigen::Dynamic, 1>::Zero(29);
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      bu[r.user] += 1;
      v(r.item) = (v(r.item) * 3 + r.user + 1) % 1000003;
    }
  }
  snd::Hash h;
  h << bu;
  for (Eigen::Index k = 0; k < v.size(); ++k) {
    h << v(k);
  }
  h.print();
  return 0;
}
