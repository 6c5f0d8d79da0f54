#include "common.h"

#include <vector>

// An LDA-shaped loop over a std::vector of tokens that writes each token's topic (a non-key
// field): keys doc and word, as over a rotor::Dataset<Token>.
void resample(std::vector<Token>& tokens, rotor::DistArray<std::int32_t, 2>& doc_topic,
              rotor::DistArray<std::int32_t, 2>& word_topic, std::int32_t topics) {
#pragma rotor parallel_for
  for (Token& t : tokens) {
    doc_topic(t.doc, t.topic) -= 1;
    word_topic(t.word, t.topic) -= 1;
    t.topic = (t.topic + t.word + 1) % topics;
    doc_topic(t.doc, t.topic) += 1;
    word_topic(t.word, t.topic) += 1;
  }
}
