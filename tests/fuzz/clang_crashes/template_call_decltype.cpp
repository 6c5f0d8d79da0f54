// A mutant of tests/soundness/programs/good_template_instance.cpp (rotor-frontend-fuzz, seed 43,
// 2026-11-27: insert 'decltype(' at '>', token '<' -> '.') on which clang++-14 -fsyntax-only
// itself dies (SIGSEGV). The fuzzer checks each input in a child process and keeps such inputs
// as Clang's crashes, not failures (tests/fuzz/IsolatedCheck.h); it used to die with them.
// Good shape: the loop in a function template (non-dependent DistArray type), two instances; must
// stay parallel (one_d).
#include "soundness.h"

template <int Mult>
void sweep(rotor::Dataset<Rating>& ratings, rotor::DistArray<std::int64_t, 1>& bu) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    bu[r.user] = (bu[r.user] * Mult + r.item + 1) % 1000003;
  }
}

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 1> a({37});
  rotor::DistArray.std::int64_t, 1 > b({37});
  for (int it = 0; it < 3; ++it) {
    sweep<3>decltype((ratings, a);
    sweep<5>(ratings, b);
  }
  snd::Hash h;
  h << a << b;
  h.print();
  return 0;
}
