// Shape: a container the loop reads and one it writes, where one is a reference parameter of the
// loop's function. A container object local to that function (`std::vector<std::int64_t> table`,
// an Eigen matrix) cannot be the parameter's memory: the first two loops may run in parallel. A
// local `Eigen::Map` over the parameter's memory, and a local reference bound to it, are the
// same memory: those loops must stay serial (or equal the replay).
#include "soundness.h"

#include <Eigen/Core>

#include <vector>

using Table = Eigen::Matrix<std::int64_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

constexpr std::int64_t P = 1000003;

static void sweep(rotor::Dataset<Rating>& ratings, std::vector<std::int64_t>& out, Table& T) {
  std::vector<std::int64_t> table(29, 3);
  Table local = Table::Constant(29, 2, 5);
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    out[r.user] = (out[r.user] * 7 + table[r.item]) % P;
  }
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    T(r.user, 0) = (T(r.user, 0) * 5 + local(r.item, 1)) % P;
  }
  Eigen::Map<Table> alias(T.data(), T.rows(), T.cols());
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    T(r.user, 1) = (T(r.user, 1) * 3 + alias(r.item, 1)) % P;
  }
  std::vector<std::int64_t>& same = out;
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    out[r.user] = (out[r.user] * 11 + same[r.item]) % P;
  }
}

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  std::vector<std::int64_t> out(37, 1);
  Table T = Table::Constant(37, 2, 2);
  for (int it = 0; it < 3; ++it) {
    sweep(ratings, out, T);
  }
  snd::Hash h;
  for (const std::int64_t v : out) {
    h << v;
  }
  h.bytes(T.data(), sizeof(std::int64_t) * T.size());
  h.print();
  return 0;
}
