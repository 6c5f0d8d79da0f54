// Compile-and-run test of device(gpu) loops: built serially (plain compiler) and with rotor-cc,
// whose device bodies (typed `ROTOR_DEVICE_LAMBDA` lambdas over rotor::ArrayRef, docs/design/
// codegen-contract.md "Device loops") the host compiler builds when Rotor has no nvcc: they run
// on CPU workers and must print what the serial build prints. Integer-valued arithmetic keeps
// unordered loops exact.
#include <rotor/rotor.h>

#include <cstdint>
#include <cstdio>
#include <vector>

struct Edge {
  std::int32_t user;
  std::int32_t item;
  std::int32_t weight;
};

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  std::vector<Edge> edges;
  for (int i = 0; i < 3000; ++i) {
    edges.push_back({(i * 7) % 37, (i * 13) % 29, i % 5 + 1});
  }
  rotor::Dataset<Edge> data(edges);
  rotor::DistArray<float, 2> W({37, 4}), H({29, 4});
  const float step = 2.0f;
  double total = 0;
  for (int epoch = 0; epoch < 3; ++epoch) {
#pragma rotor parallel_for device(gpu)
    for (const Edge& e : data) {
      auto w = W.row(e.user);
      auto h = H.row(e.item);
      w.array() += step * static_cast<float>(e.weight);
      h(0) += static_cast<float>(e.weight);
      total += e.weight;
    }
  }
  double rows = 0;
#pragma rotor parallel_for device(gpu)
  for (const auto& e : data) {
    rows += W(e.user, 3) + H.row(e.item).sum() + static_cast<double>(W.cols());
  }
  std::printf("W00=%.1f W363=%.1f H00=%.1f H281=%.1f total=%.1f rows=%.1f\n", W(0, 0), W(36, 3),
              H(0, 0), H(28, 1), total, rows);
  return 0;
}
