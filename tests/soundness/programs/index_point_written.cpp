// Shape: the index point of an IndexSpace loop written (`i = 0` on the structured binding) before A(i, j).
#include "soundness.h"

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::IndexSpace<2> grid({32, 24});
  rotor::DistArray<std::int64_t, 2> A({32, 24});
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (auto [i, j] : grid) {
      const std::int64_t from = i;
      i = 0;
      A(i, j) += from * 3 + j + 1; // commutative: any order gives the same sums
    }
  }
  snd::Hash h;
  h << A;
  h.print();
  return 0;
}
