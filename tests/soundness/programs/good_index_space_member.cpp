// Good shape: an unordered IndexSpace loop in a member function, each point updating only A(i, j) from a DistArray parameter; must stay parallel.
#include "soundness.h"

struct Smoother {
  std::int64_t mult = 3; // read-only member
  void pass(const rotor::IndexSpace<2>& grid, rotor::DistArray<std::int64_t, 2>& A) const {
#pragma rotor parallel_for
    for (auto [i, j] : grid) {
      A(i, j) = (A(i, j) * mult + i * 7 + j + 1) % 1000003;
    }
  }
};

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::IndexSpace<2> grid({36, 28});
  rotor::DistArray<std::int64_t, 2> A({36, 28});
  Smoother s;
  for (int it = 0; it < 3; ++it) {
    s.pass(grid, A);
  }
  snd::Hash h;
  h << A;
  h.print();
  return 0;
}
