#include "common.h"

#include <cstddef>
#include <vector>

// Index loops over a std::vector of records: `v[i]` is the record, directly or through a
// reference, with the same keys and plan as a range-for over a rotor::Dataset of them.
double train(std::vector<Rating>& ratings, rotor::DistArray<float, 2>& W,
             rotor::DistArray<float, 2>& H, float lr) {
  double loss = 0;
/* #pragma rotor parallel_for */
  {
    static ::rotor::codegen::Inspection<2> rotor_inspection;
    auto&& rotor_range = ratings;
    auto& rotor_iterations = rotor_inspection.records(rotor_range, &Rating::user, &Rating::item);
    ::rotor::codegen::run_loop(
      ::rotor::codegen::LoopSpec{
          "vector_index.cpp", 12, ::rotor::codegen::Kind::rotation,
          /*fields*/ {0, 1}, /*matrix*/ {}, /*base*/ ::rotor::codegen::Kind::serial,
          /*ordered*/ false, /*writes_records*/ false, ::rotor::codegen::Device::cpu,
          /*arrays*/ {
              {"W", ::rotor::codegen::Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}},
              {"H", ::rotor::codegen::Role::rotating, 1, true, {{1, 0, 0}, {-1, 0, 0}}}},
          /*reductions*/ {"loss"}, /*reason*/ "", /*may_throw*/ false},
      rotor_iterations, ::rotor::codegen::iteration_keys<2>(),
      std::tie(W, H), std::tie(loss),
      [&, lr](const ::rotor::codegen::Iteration<2>& rotor_iteration, auto& W, auto& H, auto& loss) { const std::size_t i = static_cast<std::size_t>(rotor_iteration.at); (void)i;
#line 13 "vector_index.cpp"
    const Rating& r = ratings[i];
    auto w = W.row(r.user);
    auto h = H.row(r.item);
    float e = r.value - w.dot(h);
    loss += e * e;
    w += lr * e * h;
    h += lr * e * w;
  }); }
#line 21 "vector_index.cpp"
  return loss;
}

void resample(std::vector<Token>& tokens, rotor::DistArray<std::int32_t, 2>& doc_topic,
              std::int32_t topics) {
/* #pragma rotor parallel_for */
  {
    static ::rotor::codegen::Inspection<2> rotor_inspection;
    auto&& rotor_range = tokens;
    auto& rotor_iterations = rotor_inspection.records(rotor_range, &Token::doc, &Token::word);
    ::rotor::codegen::run_loop(
      ::rotor::codegen::LoopSpec{
          "vector_index.cpp", 27, ::rotor::codegen::Kind::one_d,
          /*fields*/ {0}, /*matrix*/ {}, /*base*/ ::rotor::codegen::Kind::serial,
          /*ordered*/ false, /*writes_records*/ false, ::rotor::codegen::Device::cpu,
          /*arrays*/ {
              {"doc_topic", ::rotor::codegen::Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}}},
          /*reductions*/ {}, /*reason*/ "", /*may_throw*/ false, /*views*/ {"tokens"}},
      rotor_iterations, ::rotor::codegen::iteration_keys<2>(),
      std::tie(doc_topic), std::tie(),
      [&, topics](const ::rotor::codegen::Iteration<2>& rotor_iteration, auto& doc_topic) { const std::size_t n = static_cast<std::size_t>(rotor_iteration.at); (void)n;
#line 28 "vector_index.cpp"
    doc_topic(tokens[n].doc, tokens[n].topic) -= 1;
    auto& t = tokens[n];
    t.topic = (t.topic + t.word + 1) % topics;
    doc_topic(tokens[n].doc, t.topic) += 1;
  }); rotor_inspection.share_written(rotor_range); }
#line 33 "vector_index.cpp"
}

// added by rotor-cc: the program was built by rotor-cc
extern "C" __attribute__((weak)) const int rotor_cc_built_program = 1;
