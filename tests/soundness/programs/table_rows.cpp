// Good shape: std::vector<std::vector<T>> tables indexed t[row][k] (GibbsLDA++-style counts
// nw[word][topic] and nd[doc][topic], a parameter and a local; a ragged member table read and
// written through its rows' size(); a global): each loop must be parallel (rotor-cc stages each
// written table into one contiguous DistArray for the loop and copies it back afterwards).
#include "soundness.h"

constexpr std::int64_t P = 1000003;
constexpr int kTopics = 8;

std::vector<std::vector<std::int64_t>> g_user_rows(37, std::vector<std::int64_t>(3, 1));

static std::int64_t count(rotor::Dataset<Token>& tokens, std::vector<std::vector<std::int32_t>>& nw,
                          std::vector<std::vector<std::int64_t>>& nd) {
  std::int64_t total = 0;
#pragma rotor parallel_for
  for (const Token& t : tokens) {
    std::int64_t s = 0;
    for (int k = 0; k < kTopics; ++k) {
      s = (s + nw[t.word][k] * (nd[t.doc][k] + 1)) % P;
    }
    nw[t.word][t.topic] += 1;
    nd[t.doc][t.topic] = (nd[t.doc][t.topic] * 3 + s + static_cast<std::int64_t>(nw.size())) % P;
    total += s;
  }
  return total;
}

struct Ragged {
  std::vector<std::vector<std::int64_t>> rows; // row u has u % 4 + 1 elements

  void sweep(rotor::Dataset<Rating>& ratings) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      for (std::size_t j = 0; j < rows[r.user].size(); ++j) {
        rows[r.user][j] = (rows[r.user][j] * 13 + r.item + static_cast<std::int64_t>(j)) % P;
      }
    }
  }
};

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Token> tokens(snd::tokens());
  rotor::Dataset<Rating> ratings(snd::ratings());
  std::vector<std::vector<std::int32_t>> nw(41, std::vector<std::int32_t>(kTopics, 0));
  std::vector<std::vector<std::int64_t>> nd(31, std::vector<std::int64_t>(kTopics, 1));
  Ragged ragged;
  for (int u = 0; u < 37; ++u) {
    ragged.rows.emplace_back(u % 4 + 1, u);
  }
  std::int64_t total = 0;
  for (int it = 0; it < 3; ++it) {
    total = (total * 31 + count(tokens, nw, nd)) % P;
    ragged.sweep(ratings);
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      g_user_rows[r.user][r.item % 3] = (g_user_rows[r.user][r.item % 3] * 7 + r.item) % P;
    }
  }
  snd::Hash h;
  h << nw << nd << ragged.rows << g_user_rows << total;
  h.records(tokens);
  h.records(ratings);
  h.print();
  return 0;
}
