// Good shape: ordered IndexSpace stencil (dependences (1,0), (0,1)); must stay parallel (wavefront).
#include "soundness.h"

constexpr std::int64_t P = 1000003;

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::IndexSpace<2> grid({40, 30});
  rotor::DistArray<std::int64_t, 2> A({40, 30});
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for ordered
    for (auto [i, j] : grid) {
      const std::int64_t up = i > 0 ? A(i - 1, j) : 1;
      const std::int64_t left = j > 0 ? A(i, j - 1) : 2;
      A(i, j) = (3 * up + 5 * left + A(i, j) + i * j + it) % P;
    }
  }
  snd::Hash h;
  h << A;
  h.print();
  return 0;
}
