#include "common.h"

#include <vector>

// An LDA-shaped loop over a std::vector of tokens that writes each token's topic (a non-key
// field): keys doc and word, as over a rotor::Dataset<Token>.
void resample(std::vector<Token>& tokens, rotor::DistArray<std::int32_t, 2>& doc_topic,
              rotor::DistArray<std::int32_t, 2>& word_topic, std::int32_t topics) {
/* #pragma rotor parallel_for */
  {
    static ::rotor::codegen::Inspection<2> rotor_inspection;
    auto&& rotor_range = tokens;
    auto& rotor_iterations = rotor_inspection.records(rotor_range, &Token::doc, &Token::word);
    ::rotor::codegen::run_loop(
      ::rotor::codegen::LoopSpec{
          "vector_topics.cpp", 10, ::rotor::codegen::Kind::rotation,
          /*fields*/ {0, 1}, /*matrix*/ {}, /*base*/ ::rotor::codegen::Kind::serial,
          /*ordered*/ false, /*writes_records*/ false, ::rotor::codegen::Device::cpu,
          /*arrays*/ {
              {"doc_topic", ::rotor::codegen::Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}},
              {"word_topic", ::rotor::codegen::Role::rotating, 1, true, {{1, 0, 0}, {-1, 0, 0}}}},
          /*reductions*/ {}, /*reason*/ "", /*may_throw*/ false, /*views*/ {"tokens"}},
      rotor_iterations, ::rotor::codegen::iteration_keys<2>(),
      std::tie(doc_topic, word_topic), std::tie(),
      [&, topics](const ::rotor::codegen::Iteration<2>& rotor_iteration, auto& doc_topic, auto& word_topic) { Token& t = rotor_range[rotor_iteration.at];
#line 11 "vector_topics.cpp"
    doc_topic(t.doc, t.topic) -= 1;
    word_topic(t.word, t.topic) -= 1;
    t.topic = (t.topic + t.word + 1) % topics;
    doc_topic(t.doc, t.topic) += 1;
    word_topic(t.word, t.topic) += 1;
  }); rotor_inspection.share_written(rotor_range); }
#line 17 "vector_topics.cpp"
}

// added by rotor-cc: the program was built by rotor-cc
extern "C" __attribute__((weak)) const int rotor_cc_built_program = 1;
