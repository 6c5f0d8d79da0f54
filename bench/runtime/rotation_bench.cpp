// MF-shaped SGD over generated ratings: a plain serial loop, or the same body through
// rotor::codegen::run_loop with a rotation plan (what rotor-cc emits). Prints one line of
// key=value pairs (rank 0). Driven by run_rotation_bench.sh.
//
//   rotation_bench --mode plain|rotor [--ratings 10000000] [--users 200000] [--items 20000]
//                  [--k 32] [--epochs 4]
#include "rotor/distarray/detail/CounterRng.h"
#include "rotor/rotor.h"
#include "rotor/runtime/detail/Engine.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

struct Rating {
  std::int32_t user;
  std::int32_t item;
  float value;
};

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  std::string mode = "rotor";
  long ratings_n = 10000000, users = 200000, items = 20000, k = 32, epochs = 4;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    long v = std::atol(argv[i + 1]);
    if (a == "--mode") {
      mode = argv[i + 1];
    } else if (a == "--ratings") {
      ratings_n = v;
    } else if (a == "--users") {
      users = v;
    } else if (a == "--items") {
      items = v;
    } else if (a == "--k") {
      k = v;
    } else if (a == "--epochs") {
      epochs = v;
    } else {
      std::fprintf(stderr, "rotation_bench: unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  if (mode != "plain" && mode != "rotor") {
    std::fprintf(stderr, "rotation_bench: --mode must be plain or rotor\n");
    return 2;
  }
  // each rank generates its share of the ratings, as a loader reads its byte range of a file
  // (a distributed dataset: the first parallel loop moves records to the rank of their block)
  const long first = ratings_n * session.rank() / session.ranks();
  const long last = ratings_n * (session.rank() + 1) / session.ranks();
  std::vector<Rating> records(static_cast<std::size_t>(last - first));
  for (long n = first; n < last; ++n) {
    std::uint64_t h = rotor::detail::counter_bits(42, 0, static_cast<std::uint64_t>(n));
    records[static_cast<std::size_t>(n - first)] = {
        static_cast<std::int32_t>(h % static_cast<std::uint64_t>(users)),
        static_cast<std::int32_t>((h >> 24) % static_cast<std::uint64_t>(items)),
        1.0f + static_cast<float>((h >> 48) % 5)};
  }
  auto ratings =
      rotor::Dataset<Rating>::distributed(std::move(records), static_cast<std::uint64_t>(first));
  rotor::DistArray<float, 2> W({users, k}), H({items, k});
  W.fill_normal(0.f, 0.1f, 1);
  H.fill_normal(0.f, 0.1f, 2);
  const float lr = 0.005f, reg = 0.02f;
  auto body = [&](const Rating& r, auto& W, auto& H, auto& loss) {
    auto w = W.row(r.user);
    auto h = H.row(r.item);
    float e = r.value - w.dot(h);
    loss += e * e;
    w += lr * (e * h - reg * w);
    h += lr * (e * w - reg * h);
  };
  rotor::codegen::LoopSpec spec{
      "rotation_bench.cpp",
      70,
      rotor::codegen::Kind::rotation,
      {0, 1},
      {},
      rotor::codegen::Kind::serial,
      false,
      false,
      rotor::codegen::Device::cpu,
      {{"W", rotor::codegen::Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}},
       {"H", rotor::codegen::Role::rotating, 1, true, {{1, 0, 0}, {-1, 0, 0}}}},
      {"loss"},
      "",
      /*may_throw*/ false}; // as rotor-cc proves for this body
  double later_seconds = 0, later_cpu = 0, transfer = 0, exposed = 0, loss = 0;
  for (long epoch = 0; epoch < epochs; ++epoch) {
    loss = 0;
    auto t0 = std::chrono::steady_clock::now();
    std::clock_t c0 = std::clock();
    if (mode == "plain") {
      for (const Rating& r : ratings) {
        body(r, W, H, loss);
      }
    } else {
      rotor::codegen::run_loop(spec, ratings, rotor::codegen::keys(&Rating::user, &Rating::item),
                               std::tie(W, H), std::tie(loss), body);
    }
    double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (epoch > 0 || epochs == 1) { // the first epoch also lays the records out
      later_seconds += dt;
      later_cpu += static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
      transfer += rotor::detail::last_stats().transfer_s;
      exposed += rotor::detail::last_stats().exposed_s;
    }
  }
  const long timed = epochs > 1 ? epochs - 1 : 1;
  const double ups = static_cast<double>(ratings_n) * timed / later_seconds;
  session.out() << "mode=" << mode << " ranks=" << session.ranks()
                << " threads=" << (mode == "plain" ? 1 : session.threads())
                << " updates_per_s=" << ups
                << " updates_per_cpu_s=" << static_cast<double>(ratings_n) * timed / later_cpu
                << " epoch_s=" << later_seconds / timed
                << " rmse=" << std::sqrt(loss / static_cast<double>(ratings_n))
                << " comm_hidden=" << (transfer > 0 ? 1.0 - exposed / transfer : 1.0) << "\n";
  return 0;
}
