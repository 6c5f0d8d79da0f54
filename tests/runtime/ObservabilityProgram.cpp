// A small annotated-style program for the observability tests: a rotation loop (SGD-MF shape)
// per epoch with rotor::report_metric, a serial-plan loop and an independent loop over an
// IndexSpace, written the way rotor-cc's output calls the runtime. Run it with
// --rotor-metrics / --rotor-trace; check_observability.py checks the files.
//
//   observability_program [--ratings N] [--epochs E]
#include "rotor/rotor.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

struct Rating {
  std::int32_t user;
  std::int32_t item;
  float value;
};

rotor::codegen::ArraySpec array(const char* name, rotor::codegen::Role role, int key, bool written,
                                std::vector<rotor::codegen::Dim> dims) {
  rotor::codegen::ArraySpec a;
  a.name = name;
  a.role = role;
  a.key = key;
  a.written = written;
  a.dims = std::move(dims);
  return a;
}

rotor::codegen::LoopSpec spec(int line, rotor::codegen::Kind kind, std::vector<int> fields,
                              std::vector<rotor::codegen::ArraySpec> arrays) {
  rotor::codegen::LoopSpec s;
  s.file = "observability_program.cpp";
  s.line = line;
  s.kind = kind;
  s.fields = std::move(fields);
  s.arrays = std::move(arrays);
  s.reductions = {"loss"};
  return s;
}

} // namespace

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  long n = 20000, epochs = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--ratings") {
      n = std::atol(argv[i + 1]);
    } else if (a == "--epochs") {
      epochs = std::atol(argv[i + 1]);
    } else {
      return 2;
    }
  }
  const int users = 300, items = 200, k = 8;
  std::vector<Rating> records;
  for (long j = 0; j < n; ++j) {
    const auto h = static_cast<std::uint64_t>(j) * 0x9E3779B97F4A7C15ull;
    records.push_back({static_cast<std::int32_t>((h >> 11) % users),
                       static_cast<std::int32_t>((h >> 33) % items),
                       1.0f + static_cast<float>((h >> 50) % 5)});
  }
  rotor::Dataset<Rating> ratings(std::move(records));
  rotor::DistArray<float, 2> W({users, k}), H({items, k});
  W.fill_normal(0.f, 0.1f, 1);
  H.fill_normal(0.f, 0.1f, 2);
  using rotor::codegen::Kind;
  using rotor::codegen::Role;
  const auto rotation = spec(40, Kind::rotation, {0, 1},
                             {array("W", Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}),
                              array("H", Role::rotating, 1, true, {{1, 0, 0}, {-1, 0, 0}})});
  auto sgd = [](const Rating& r, auto& W, auto& H, auto& loss) {
    auto w = W.row(r.user);
    auto h = H.row(r.item);
    const float e = r.value - w.dot(h);
    loss += e * e;
    w += 0.01f * (e * h - 0.02f * w);
    h += 0.01f * (e * w - 0.02f * h);
  };
  const auto keys = rotor::codegen::keys(&Rating::user, &Rating::item);
  for (long epoch = 1; epoch <= epochs; ++epoch) {
    double loss = 0;
    rotor::codegen::run_loop(rotation, ratings, keys, std::tie(W, H), std::tie(loss), sgd);
    rotor::report_metric("train_rmse", std::sqrt(loss / static_cast<double>(n)), epoch);
  }
  // a loop the analysis left serial: every rank runs every record
  double total = 0;
  auto serial = spec(60, Kind::serial, {}, {array("W", Role::replicated, -1, false, {})});
  rotor::codegen::run_loop(serial, ratings, keys, std::tie(W), std::tie(total),
                           [](const Rating& r, auto& W, auto& sum) { sum += W(r.user, 0); });
  // an independent loop over an index space (one point per user row)
  rotor::IndexSpace<1> rows({users});
  double norm = 0;
  auto independent = spec(70, Kind::independent, {0},
                          {array("W", Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}})});
  rotor::codegen::run_loop(independent, rows, rotor::codegen::index_keys<1>(), std::tie(W),
                           std::tie(norm), [](const rotor::Index<1>& i, auto& W, auto& sum) {
                             W(i[0], 0) *= 0.5f;
                             sum += W(i[0], 0) * W(i[0], 0);
                           });
  rotor::report_metric("w_norm", std::sqrt(norm));
  rotor::report_metric("w_norm", std::sqrt(norm));
  session.out() << "records=" << n << " epochs=" << epochs << "\n";
  return 0;
}
