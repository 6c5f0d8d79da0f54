#include "common.h"

#include <vector>

// SGD matrix factorisation over a std::vector of ratings: the same keys and plan as over a
// rotor::Dataset<Rating> (mf.cpp), run through the inspector.
double train(std::vector<Rating>& ratings, rotor::DistArray<float, 2>& W,
             rotor::DistArray<float, 2>& H, float lr, float reg) {
  double loss = 0;
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    auto w = W.row(r.user);
    auto h = H.row(r.item);
    float e = r.value - w.dot(h);
    loss += e * e;
    w += lr * (e * h - reg * w);
    h += lr * (e * w - reg * h);
  }
  return loss;
}
