// Shape: a helper whose loop writes one container parameter and reads another of the same
// class, called once with two containers and once with the same container twice. rotor-cc
// cannot tell the references apart, so run_loop compares their memory when the loop starts
// (codegen::unless_shared): the first call may run in parallel, the second must run serially
// (it reads what other records of the same loop write). Vectors and Eigen matrices.
#include "soundness.h"

#include <Eigen/Core>

#include <cstdint>
#include <vector>

using Table = Eigen::Matrix<std::int64_t, Eigen::Dynamic, Eigen::Dynamic>;

constexpr std::int64_t P = 1000003;

static void step(rotor::Dataset<Rating>& ratings, std::vector<std::int64_t>& W,
                 const std::vector<std::int64_t>& H) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    W[r.user] = (W[r.user] * 7 + H[(r.item + r.user) % 37] + r.item) % P;
  }
}

static void step_matrix(rotor::Dataset<Rating>& ratings, Table& U, Table& V) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    U(r.user, 0) = (U(r.user, 0) * 5 + V((r.item + r.user) % 37, 0) + r.item) % P;
  }
}

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  std::vector<std::int64_t> W(37, 1);
  std::vector<std::int64_t> H(37, 2);
  Table U = Table::Constant(37, 1, 3);
  Table V = Table::Constant(37, 1, 4);
  for (int it = 0; it < 2; ++it) {
    step(ratings, W, H);
    step(ratings, W, W); // the same vector: serial
    step_matrix(ratings, U, V);
    step_matrix(ratings, U, U); // the same matrix: serial
  }
  snd::Hash h;
  h << W << H;
  h.bytes(U.data(), sizeof(std::int64_t) * U.size());
  h.bytes(V.data(), sizeof(std::int64_t) * V.size());
  h.print();
  return 0;
}
