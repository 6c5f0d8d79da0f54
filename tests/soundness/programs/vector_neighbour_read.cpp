// Must stay serial: an index loop over a std::vector whose body reads the next element, which
// another iteration writes (`tokens[i + 1].topic`). Any parallel order changes the topics; the
// rotor build runs the iterations in index order on every rank, as the serial build does.
#include "soundness.h"

constexpr int T = 8;

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  std::vector<Token> tokens = snd::tokens();
  rotor::DistArray<std::int32_t, 2> ndk({31, T});
#pragma rotor parallel_for
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const int next = i + 1 < tokens.size() ? tokens[i + 1].topic : 0;
    tokens[i].topic = (tokens[i].topic * 5 + next + 1) % T;
    ndk(tokens[i].doc, tokens[i].topic) += 1;
  }
  snd::Hash h;
  h << ndk << tokens;
  h.print();
  return 0;
}
