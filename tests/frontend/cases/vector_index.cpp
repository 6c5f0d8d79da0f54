#include "common.h"

#include <cstddef>
#include <vector>

// Index loops over a std::vector of records: `v[i]` is the record, directly or through a
// reference, with the same keys and plan as a range-for over a rotor::Dataset of them.
double train(std::vector<Rating>& ratings, rotor::DistArray<float, 2>& W,
             rotor::DistArray<float, 2>& H, float lr) {
  double loss = 0;
#pragma rotor parallel_for
  for (std::size_t i = 0; i < ratings.size(); ++i) {
    const Rating& r = ratings[i];
    auto w = W.row(r.user);
    auto h = H.row(r.item);
    float e = r.value - w.dot(h);
    loss += e * e;
    w += lr * e * h;
    h += lr * e * w;
  }
  return loss;
}

void resample(std::vector<Token>& tokens, rotor::DistArray<std::int32_t, 2>& doc_topic,
              std::int32_t topics) {
#pragma rotor parallel_for
  for (std::size_t n = 0; n < tokens.size(); n++) {
    doc_topic(tokens[n].doc, tokens[n].topic) -= 1;
    auto& t = tokens[n];
    t.topic = (t.topic + t.word + 1) % topics;
    doc_topic(tokens[n].doc, t.topic) += 1;
  }
}
