#include "common.h"

#include <cstdlib>

// private(random): libc's generator per worker (GibbsLDA++ samples topics with random()). The
// calls in the helper and in the body are rewritten to ::rotor::codegen::worker_random(); the
// second loop, without the clause, stays serial.
static int sample(int K) { return static_cast<int>(::rotor::codegen::worker_random() % K); }

void gibbs(rotor::Dataset<Token>& tokens, rotor::DistArray<int, 2>& nw, int K) {
/* #pragma rotor parallel_for private(random) */
  {
    ::rotor::codegen::LibcPrivate rotor_private_libc_random(::rotor::codegen::LibcPrivate::random_k);
    ::rotor::codegen::run_loop(
      ::rotor::codegen::LoopSpec{
          "libc_private.cpp", 12, ::rotor::codegen::Kind::one_d,
          /*fields*/ {1}, /*matrix*/ {}, /*base*/ ::rotor::codegen::Kind::serial,
          /*ordered*/ false, /*writes_records*/ true, ::rotor::codegen::Device::cpu,
          /*arrays*/ {
              {"nw", ::rotor::codegen::Role::partitioned, 1, true, {{1, 0, 0}, {-1, 0, 0}}}},
          /*reductions*/ {}, /*reason*/ "", /*may_throw*/ false, /*views*/ {}, /*private_state*/ {"random"}},
      tokens, ::rotor::codegen::keys(&Token::doc, &Token::word),
      std::tie(nw), std::tie(),
      [&, K](Token& t, auto& nw) {
#line 13 "libc_private.cpp"
    nw(t.word, t.topic) -= 1;
    t.topic = sample(K);
    nw(t.word, t.topic) += 1;
  }); }
#line 17 "libc_private.cpp"
}

void unmarked(rotor::Dataset<Token>& tokens, rotor::DistArray<int, 2>& nw, int K) {
/* #pragma rotor parallel_for */
  ::rotor::codegen::run_loop(
      ::rotor::codegen::LoopSpec{
          "libc_private.cpp", 21, ::rotor::codegen::Kind::serial,
          /*fields*/ {}, /*matrix*/ {}, /*base*/ ::rotor::codegen::Kind::serial,
          /*ordered*/ false, /*writes_records*/ false, ::rotor::codegen::Device::cpu,
          /*arrays*/ {
              {"nw", ::rotor::codegen::Role::local, -1, true, {{1, 0, 0}, {-1, 0, 0}}}},
          /*reductions*/ {}, /*reason*/ "the loop body has a call with unknown effects (call to 'random', which Rotor does not know to be free of hidden state (known-pure list: docs/design/dependence-model.md)) at libc_private.cpp:8:52", /*may_throw*/ false},
      tokens, ::rotor::codegen::keys(&Token::doc, &Token::word, &Token::topic),
      std::tie(nw), std::tie(),
      [&, K](Token& t, auto& nw) {
#line 22 "libc_private.cpp"
    nw(t.word, 0) += sample(K);
  });
#line 24 "libc_private.cpp"
}

// added by rotor-cc: the program was built by rotor-cc
extern "C" __attribute__((weak)) const int rotor_cc_built_program = 1;
