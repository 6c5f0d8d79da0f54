// Shape: unsigned wraparound `i + 0xFFFFFFFFu` (really i - 1) as a subscript in an ordered loop.
#include "soundness.h"

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::IndexSpace<2> grid({40, 30});
  rotor::DistArray<std::int64_t, 2> A({40, 30});
  A.fill(1);
  for (int it = 0; it < 2; ++it) {
#pragma rotor parallel_for ordered
    for (auto [i, j] : grid) {
      if (i > 0 && j > 0) {
        const std::uint32_t up = static_cast<std::uint32_t>(i) + 0xFFFFFFFFu;
        const std::uint32_t left = static_cast<std::uint32_t>(j) + 0xFFFFFFFFu;
        A(i, j) = (A(up, j) * 3 + A(i, left) * 5 + A(i, j)) % 1000003;
      }
    }
  }
  snd::Hash h;
  h << A;
  h.print();
  return 0;
}
