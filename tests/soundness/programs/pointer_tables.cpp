// Good shape: raw pointer tables (issue 16, item 1) as GibbsLDA++ and Funk-SVD programs keep
// them: `int** nw` with rows allocated separately (nw[word][k] inside 'for k < K'), a flat
// `float* W` indexed W[user * K + k], and `std::int64_t* bias` indexed bias[item] (rows of one
// element). Each loop must be parallel: rotor-cc adopts the T* tables in place and stages the
// reached rows of the T** table for the loop (docs/design/containers.md, "Pointer tables").
#include "soundness.h"

constexpr std::int64_t P = 1000003;
constexpr int kTopics = 4;

static std::int64_t count(rotor::Dataset<Token>& tokens, int** nw, int K) {
  std::int64_t total = 0;
#pragma rotor parallel_for
  for (const Token& t : tokens) {
    std::int64_t s = 0;
    for (int k = 0; k < K; ++k) {
      s = (s * 7 + nw[t.word][k] + t.doc) % P;
      nw[t.word][k] = static_cast<int>((nw[t.word][k] * 3 + s + k) % P);
    }
    total += s;
  }
  return total;
}

static void factor(rotor::Dataset<Rating>& ratings, float* W, std::int64_t* bias, int K) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    for (int k = 0; k < K; ++k) {
      W[r.user * K + k] = W[r.user * K + k] * 0.75f + r.value * static_cast<float>(k + 1);
    }
    bias[r.item] = (bias[r.item] * 5 + r.user) % P;
  }
}

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Token> tokens(snd::tokens());
  rotor::Dataset<Rating> ratings(snd::ratings());
  const int words = static_cast<int>(tokens.extent(&Token::word));
  int** nw = new int*[static_cast<std::size_t>(words)];
  for (int w = 0; w < words; ++w) {
    nw[w] = new int[kTopics];
    for (int k = 0; k < kTopics; ++k) {
      nw[w][k] = w + k;
    }
  }
  std::vector<float> W(static_cast<std::size_t>(ratings.extent(&Rating::user)) * kTopics, 0.5f);
  std::vector<std::int64_t> bias(static_cast<std::size_t>(ratings.extent(&Rating::item)), 1);
  std::int64_t total = 0;
  for (int it = 0; it < 3; ++it) {
    total = (total * 31 + count(tokens, nw, kTopics)) % P;
    factor(ratings, W.data(), bias.data(), kTopics);
  }
  snd::Hash h;
  for (int w = 0; w < words; ++w) {
    for (int k = 0; k < kTopics; ++k) {
      h << static_cast<std::int64_t>(nw[w][k]);
    }
    delete[] nw[w];
  }
  delete[] nw;
  h << W << bias << total;
  h.records(tokens);
  h.records(ratings);
  h.print();
  return 0;
}
