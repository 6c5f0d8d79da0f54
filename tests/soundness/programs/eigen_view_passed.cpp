// Shape: an Eigen row handed on as a view that writes through it, while other records read the
// same matrix: to an `Eigen::Ref<RowVector>` parameter (Ref's constructor takes a const
// reference and writes through it anyway), to a by-value template parameter (a copy of a block
// views the same memory), to a by-value parameter of a class's constructor, and bound to a local
// `Eigen::Ref`. rotor-cc once took each for a read
// (a const-reference or by-value argument), left `H` out of the loop's arrays and planned
// `one_d by user`: the parallel run lost the order of `H`'s reads and writes. Each loop must be
// serial (or equal the replay). A transpose of a row is the row's memory too: written through
// `auto t = H.row(u).transpose()`, and read in the last loop, which also passes rows to `dot`
// and builds a plain copy (reads only: that loop may run in parallel).
#include "soundness.h"

#include <Eigen/Core>

using Table = Eigen::Matrix<std::int64_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Row = Eigen::Matrix<std::int64_t, 1, Eigen::Dynamic>;

constexpr std::int64_t P = 1000003;

static void bump(Eigen::Ref<Row> row, std::int64_t v) {
  row(0) = (row(0) * 3 + v) % P;
}

template <class Block> static void bump_copy(Block b, std::int64_t v) {
  b(1) = (b(1) * 5 + v) % P;
}

// A class whose constructor takes the row by value and writes through it.
struct Bumper {
  explicit Bumper(Eigen::Block<Table, 1, Eigen::Dynamic, true> row) { row(0) = (row(0) + 1) % P; }
};

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  Table W = Table::Constant(37, 2, 1);
  Table H = Table::Constant(29, 2, 2);
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      W(r.user, 0) = (W(r.user, 0) * 7 + H(r.item, 0)) % P;
      bump(H.row(r.user % 29), static_cast<std::int64_t>(r.value));
    }
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      W(r.user, 1) = (W(r.user, 1) * 7 + H(r.item, 1)) % P;
      bump_copy(H.row((r.user + 3) % 29), r.item);
    }
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      W(r.user, 0) = (W(r.user, 0) * 17 + H(r.item, 0)) % P;
      const Bumper bumped(H.row((r.user + 11) % 29));
      (void)bumped;
    }
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      W(r.user, 0) = (W(r.user, 0) * 11 + H(r.item, 1)) % P;
      Eigen::Ref<Row> view = H.row((r.user * 2) % 29);
      view(0) = (view(0) + static_cast<std::int64_t>(r.value)) % P;
    }
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      W(r.user, 1) = (W(r.user, 1) * 13 + H(r.item, 0)) % P;
      auto t = H.row((r.user + 5) % 29).transpose(); // a view: writes reach H
      t(1) = (t(1) + r.item) % P;
      H.row((r.user + 7) % 29).transpose()(0) += 1;
    }
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      W(r.user, 0) = (W(r.user, 0) * 19 + H(r.item, 1)) % P;
      auto whole = H.transpose(); // a view of all of H
      whole(0, (r.user + 13) % 29) = (whole(0, (r.user + 13) % 29) + 1) % P;
    }
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      W(r.user, 1) = (W(r.user, 1) * 23 + H(r.item, 0)) % P;
      Table local = Table::Constant(1, 2, r.item);
      local.noalias() += H.row(r.item); // the body's own matrix
      H.row((r.user + 17) % 29).noalias() = local;
    }
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      const Row copy = H.row(r.item);
      W(r.user, 0) = (W(r.user, 0) + H.row(r.item).transpose()(1)) % P;
      W(r.user, 1) = (W(r.user, 1) + W.row(r.user).dot(H.row(r.item)) + copy(0)) % P;
    }
  }
  snd::Hash h;
  h.bytes(W.data(), sizeof(std::int64_t) * W.size());
  h.bytes(H.data(), sizeof(std::int64_t) * H.size());
  h.print();
  return 0;
}
