#include "common.h"

void lda(rotor::Dataset<Token>& tokens, rotor::DistArray<std::int32_t, 2>& ndk,
         rotor::DistArray<std::int32_t, 2>& nkw, rotor::DistArray<std::int32_t, 1>& nk,
         int topics) {
/* #pragma rotor parallel_for buffered(nkw, nk) */
  ::rotor::codegen::run_loop(
      ::rotor::codegen::LoopSpec{
          "lda_buffered.cpp", 7, ::rotor::codegen::Kind::one_d,
          /*fields*/ {0}, /*matrix*/ {}, /*base*/ ::rotor::codegen::Kind::serial,
          /*ordered*/ false, /*writes_records*/ true, ::rotor::codegen::Device::cpu,
          /*arrays*/ {
              {"ndk", ::rotor::codegen::Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}},
              {"nkw", ::rotor::codegen::Role::buffered, -1, true, {{-1, 0, 0}, {1, 0, 0}}},
              {"nk", ::rotor::codegen::Role::buffered, -1, true, {{-1, 0, 0}}}},
          /*reductions*/ {}, /*reason*/ "", /*may_throw*/ false},
      tokens, ::rotor::codegen::keys(&Token::doc, &Token::word),
      std::tie(ndk, nkw, nk), std::tie(),
      ::rotor::codegen::SparseCapable<1, 2>{},
      [&, topics](Token& t, auto& ndk, auto& nkw, auto& nk) {
#line 8 "lda_buffered.cpp"
    const int old = t.topic;
    ndk(t.doc, old) -= 1;
    nkw(old, t.word) -= 1;
    nk[old] -= 1;
    const int z = (old + t.word) % topics;
    ndk(t.doc, z) += 1;
    nkw(z, t.word) += 1;
    nk[z] += 1;
    t.topic = z;
  });
#line 18 "lda_buffered.cpp"
}

// added by rotor-cc: the program was built by rotor-cc
extern "C" __attribute__((weak)) const int rotor_cc_built_program = 1;
