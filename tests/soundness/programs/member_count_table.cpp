// Shape: member function loop updating an `int**` count table member (nw_[word][topic]) next to DistArray ndk.
#include "soundness.h"

constexpr int T = 8;

struct Sampler {
  int** nw_;
  rotor::DistArray<std::int32_t, 2> ndk{{31, T}};

  void sweep(rotor::Dataset<Token>& tokens) {
#pragma rotor parallel_for
    for (Token& t : tokens) {
      ndk(t.doc, t.topic) -= 1;
      nw_[t.word][t.topic] -= 1;
      const int z = (nw_[t.word][(t.topic + 1) % T] + t.doc + ndk(t.doc, 0)) % T;
      ndk(t.doc, z) += 1;
      nw_[t.word][z] += 1;
      t.topic = z;
    }
  }
};

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Token> tokens(snd::tokens());
  std::vector<std::vector<int>> storage(41, std::vector<int>(T, 0));
  std::vector<int*> rows;
  for (auto& row : storage) {
    rows.push_back(row.data());
  }
  Sampler s{rows.data()};
  for (const Token& t : tokens) {
    s.ndk(t.doc, t.topic) += 1;
    storage[t.word][t.topic] += 1;
  }
  for (int it = 0; it < 3; ++it) {
    s.sweep(tokens);
  }
  snd::Hash h;
  h << s.ndk << storage;
  h.records(tokens);
  h.print();
  return 0;
}
