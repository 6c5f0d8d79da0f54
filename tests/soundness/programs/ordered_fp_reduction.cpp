// Shape: an `ordered` loop with a floating-point sum reduction; the ascending-order sum is printed by its bits.
#include "soundness.h"

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::IndexSpace<2> grid({48, 40});
  rotor::DistArray<float, 2> A({48, 40});
  float sum = 0.0f;
  for (int it = 0; it < 2; ++it) {
#pragma rotor parallel_for ordered
    for (auto [i, j] : grid) {
      const float up = i > 0 ? A(i - 1, j) : 1.0f;
      A(i, j) = 0.5f * up + 0.001f * static_cast<float>(i * 40 + j);
      sum += A(i, j) * (i % 2 == 0 ? 1e6f : 1e-3f);
    }
  }
  snd::Hash h;
  h << A << sum;
  h.print();
  std::printf("sum=%a\n", static_cast<double>(sum));
  return 0;
}
