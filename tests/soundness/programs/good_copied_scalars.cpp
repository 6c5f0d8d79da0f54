// Good shape (issue 19, frontend/src/CopiedScalars.h): read-only arithmetic locals the body
// lambda captures by value. `lr` decays between runs of the loop (a write outside it), `reg` is a
// parameter, `mean` is assigned before the loop: each run's copy must hold the value the serial
// loop reads, so the hash equals the serial replay's. The second loop reads `scale` through a
// pointer taken before it and changed by a helper the loop does not call: `scale` must stay
// captured by reference (the hash covers it either way; the test is that both runs agree).
#include "soundness.h"

namespace {

std::int64_t train(rotor::Dataset<Rating>& ratings, rotor::DistArray<double, 2>& W,
                   rotor::DistArray<double, 2>& H, double reg) {
  double lr = 0.05;
  double mean = 0;
  for (const Rating& r : snd::ratings()) {
    mean += r.value;
  }
  mean /= static_cast<double>(snd::ratings().size());
  std::int64_t seen = 0; // an integer reduction: the same sum in any order
  for (int epoch = 0; epoch < 3; ++epoch) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      double error = r.value - mean;
      for (int k = 0; k < 4; ++k) {
        error -= W(r.user, k) * H(r.item, k);
      }
      seen += r.user;
      for (int k = 0; k < 4; ++k) {
        const double w = W(r.user, k);
        W(r.user, k) += lr * (error * H(r.item, k) - reg * w);
        H(r.item, k) += lr * (error * w - reg * H(r.item, k));
      }
    }
    lr *= 0.5;
  }
  return seen;
}

void rescale(double* s) {
  *s *= 1.5;
}

} // namespace

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<double, 2> W({37, 4});
  rotor::DistArray<double, 2> H({29, 4});
  for (int k = 0; k < 4; ++k) {
    for (int u = 0; u < 37; ++u) {
      W(u, k) = 0.1 + 0.01 * u;
    }
    for (int i = 0; i < 29; ++i) {
      H(i, k) = 0.2 - 0.001 * i;
    }
  }
  const std::int64_t seen = train(ratings, W, H, 0.02);
  double scale = 0.25;
  double* s = &scale;
  for (int it = 0; it < 2; ++it) {
    rescale(s);
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      W(r.user, 0) += scale * r.value;
    }
  }
  snd::Hash h;
  h << W << H << seen << scale;
  h.print();
  return 0;
}
