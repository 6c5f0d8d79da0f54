#include "common.h"

void logreg(rotor::Dataset<Feature>& features, rotor::DistArray<float, 1>& w,
            rotor::DistArray<float, 1>& margin, float lr) {
#pragma rotor parallel_for
  for (const Feature& f : features) {
    const float g = f.label - margin[f.example];
    w[f.feature] += lr * g * f.value;
  }
}
