// The exact shapes rotor-cc emits (docs/design/codegen-contract.md), compiled against
// <rotor/rotor.h>: the LoopSpec aggregate, keys(), std::tie of arrays and reductions, shadowing
// lambda parameters, `#line`, an IndexSpace loop with a structured binding, and a `break` body.
#include "LoopTestUtil.h"

namespace rotor::test {
namespace {

struct Rating {
  std::int32_t user;
  std::int32_t item;
  float value;
};

TEST(CodegenShape, ContractExampleCompilesAndRuns) {
  rotor::Dataset<Rating> ratings(
      std::vector<Rating>{{0, 0, 4.f}, {1, 2, 3.f}, {2, 1, 5.f}, {1, 1, 2.f}, {0, 2, 1.f}});
  rotor::DistArray<float, 2> W({3, 4}), H({3, 4});
  W.fill_normal(0.f, 0.1f, 1);
  H.fill_normal(0.f, 0.1f, 2);
  const float lr = 0.05f, reg = 0.01f;
  double loss = 0;
  /* #pragma rotor parallel_for */
  ::rotor::codegen::run_loop(
      ::rotor::codegen::LoopSpec{
          "sgd_mf.cpp",
          41,
          ::rotor::codegen::Kind::rotation,
          /*fields*/ {0, 1},
          /*matrix*/ {},
          /*base*/ ::rotor::codegen::Kind::serial,
          /*ordered*/ false,
          /*writes_records*/ false,
          ::rotor::codegen::Device::cpu,
          /*arrays*/
          {{"W", ::rotor::codegen::Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}},
           {"H", ::rotor::codegen::Role::rotating, 1, true, {{1, 0, 0}, {-1, 0, 0}}}},
          /*reductions*/ {"loss"},
          /*reason*/ ""},
      ratings, ::rotor::codegen::keys(&Rating::user, &Rating::item), std::tie(W, H), std::tie(loss),
      [&](const Rating& r, auto& W, auto& H, auto& loss) {
#line 42 "sgd_mf.cpp"
        auto w = W.row(r.user);
        auto h = H.row(r.item);
        float e = r.value - w.dot(h);
        loss += e * e;
        w += lr * (e * h - reg * w);
        h += lr * (e * w - reg * h);
      });
#line 50 "CodegenShapeTest.cpp"
  EXPECT_GT(loss, 0.0);
}

double sum_biases(rotor::Dataset<Rating>& ratings, const rotor::DistArray<float, 1>& bu) {
  double total = 0; // a const array binds as read-only
  ::rotor::codegen::run_loop(
      ::rotor::codegen::LoopSpec{
          "h.cpp",
          8,
          ::rotor::codegen::Kind::independent,
          {},
          {},
          ::rotor::codegen::Kind::serial,
          false,
          false,
          ::rotor::codegen::Device::cpu,
          {{"bu", ::rotor::codegen::Role::replicated, -1, false, {{0, 0, 0}}}},
          {"total"},
          ""},
      ratings, ::rotor::codegen::keys(&Rating::user, &Rating::item), std::tie(bu), std::tie(total),
      [&](const Rating& r, auto& bu, auto& total) { total += bu[r.user]; });
  return total;
}

TEST(CodegenShape, ConstArrayBindsReadOnly) {
  rotor::Dataset<Rating> ratings(std::vector<Rating>{{0, 0, 1.f}, {1, 0, 2.f}, {1, 1, 3.f}});
  rotor::DistArray<float, 1> bu({2});
  bu[0] = 0.5f;
  bu[1] = 2.0f;
  EXPECT_EQ(sum_biases(ratings, bu), 4.5);
}

TEST(CodegenShape, IndexSpaceWithStructuredBindingAndBreak) {
  rotor::IndexSpace<2> grid({4, 5});
  rotor::DistArray<double, 2> A({4, 5});
  std::int64_t visited = 0;
  ::rotor::codegen::run_loop(
      ::rotor::codegen::LoopSpec{
          "grid.cpp",
          7,
          ::rotor::codegen::Kind::independent,
          {},
          {},
          ::rotor::codegen::Kind::serial,
          false,
          false,
          ::rotor::codegen::Device::cpu,
          {{"A", ::rotor::codegen::Role::local, 0, true, {{0, 0, 0}, {1, 0, 0}}}},
          {"visited"},
          ""},
      grid, ::rotor::codegen::index_keys<2>(), std::tie(A), std::tie(visited),
      [&](const ::rotor::Index<2>& rotor_point, auto& A, auto& visited) {
        auto [i, j] = rotor_point;
        A(i, j) = static_cast<double>(i * 10 + j);
        visited += 1;
      });
  EXPECT_EQ(visited, 20);
  EXPECT_EQ(A(3, 4), 34.0);

  rotor::Dataset<Rating> ratings(std::vector<Rating>{{0, 0, 1.f}, {1, 0, 9.f}, {2, 0, 1.f}});
  double seen = 0;
  ::rotor::codegen::run_loop(::rotor::codegen::LoopSpec{"break.cpp",
                                                        3,
                                                        ::rotor::codegen::Kind::serial,
                                                        {},
                                                        {},
                                                        ::rotor::codegen::Kind::serial,
                                                        false,
                                                        false,
                                                        ::rotor::codegen::Device::cpu,
                                                        {},
                                                        {"seen"},
                                                        "'break' leaves the loop"},
                             ratings, ::rotor::codegen::keys(&Rating::user, &Rating::item),
                             std::tie(), std::tie(seen), [&](const Rating& r, auto& seen) -> bool {
                               if (r.value > 5.f) {
                                 return false;
                               }
                               seen += r.value;
                               return true;
                             });
  EXPECT_EQ(seen, 1.0);
}

// A loop planned serial gets the bound arrays themselves, as the serial program's body names
// them: its body may keep an array's address past the loop (here, as an outside write and a
// taken address make the frontend plan it serial). A loop planned parallel may get local views
// of them (RunLoop.h, local_view): other objects over the same memory.
TEST(CodegenShape, SerialPlanBodyGetsTheArraysThemselves) {
  rotor::Dataset<Rating> ratings(std::vector<Rating>{{0, 0, 4.f}, {1, 2, 3.f}, {2, 1, 5.f}});
  rotor::DistArray<float, 2> W({3, 4});
  const auto run = [&](::rotor::codegen::Kind kind) {
    const rotor::DistArray<float, 2>* seen = nullptr;
    const float* seen_data = nullptr;
    ::rotor::codegen::run_loop(
        ::rotor::codegen::LoopSpec{
            "keep.cpp",
            3,
            kind,
            /*fields*/ {0},
            /*matrix*/ {},
            /*base*/ ::rotor::codegen::Kind::serial,
            /*ordered*/ false,
            /*writes_records*/ false,
            ::rotor::codegen::Device::cpu,
            /*arrays*/
            {{"W", ::rotor::codegen::Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}}},
            /*reductions*/ {},
            /*reason*/ ""},
        ratings, ::rotor::codegen::keys(&Rating::user), std::tie(W), std::tie(),
        [&](const Rating& r, auto& W) {
          W(r.user, 0) += r.value;
          if (r.user == 0) {
            seen = &W;
            seen_data = W.data();
          }
        });
    return std::make_pair(seen, seen_data);
  };
  const auto serial = run(::rotor::codegen::Kind::serial);
  EXPECT_EQ(serial.first, &W) << "a serial plan's body got another object than the array";
  EXPECT_EQ(serial.second, W.data());
  const auto parallel = run(::rotor::codegen::Kind::one_d);
  if (parallel.second != nullptr) { // this rank ran user 0's record
    EXPECT_EQ(parallel.second, W.data()) << "a parallel plan's body got other memory";
  }
  EXPECT_EQ(W(0, 0), 8.f);
}

} // namespace
} // namespace rotor::test
