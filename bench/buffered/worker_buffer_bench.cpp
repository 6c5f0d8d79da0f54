// Dense copies vs sparse hash-map worker buffers (docs/design/buffered.md, "Worker buffers"): a
// logistic-regression-shaped loop (each record reads and updates `--touch` random elements of a
// buffered float array) over array sizes 2^14..2^22, merging at the loop end or every `--flush`
// records. Prints seconds per loop (median of `--reps`) and the rank's buffer bytes for both kinds,
// and the worker density (largest fraction of rows one worker touched between merges).
//
//   build/default/bench/buffered/worker_buffer_bench [--records 20000] [--touch 32] [--flush 256]
//       [--reps 3] [--rotor-threads=1]     (or under mpirun)

#include <rotor/rotor.h>

#include "BufferedFlush.h" // the worker-buffer setting and the merge statistics

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Example {
  std::int32_t id;
};

std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  return x ^ (x >> 33);
}

struct Result {
  double seconds;
  double kib;
  double density;
};

Result run(std::int64_t size, int records, int touch, std::int64_t flush, bool sparse, int reps) {
  auto& s = rotor::detail::buffered_settings();
  s.flush_every = flush;
  s.worker_buffer = sparse ? rotor::detail::BufferedSettings::Exchange::sparse
                           : rotor::detail::BufferedSettings::Exchange::dense;
  std::vector<Example> ex;
  for (int i = 0; i < records; ++i) {
    ex.push_back({i});
  }
  rotor::Dataset<Example> data(ex);
  rotor::DistArray<float, 1> w({size});
  std::vector<double> times;
  Result r{};
  for (int rep = 0; rep < reps; ++rep) {
    rotor::codegen::LoopSpec spec;
    spec.file = "worker_buffer_bench.cpp";
    spec.line = __LINE__;
    spec.kind = rotor::codegen::Kind::data_parallel;
    spec.arrays = {{"w", rotor::codegen::Role::buffered, -1, true, {{-1, 0, 0}}}};
    const auto t0 = std::chrono::steady_clock::now();
    rotor::codegen::run_loop(
        spec, data, rotor::codegen::keys(&Example::id), std::tie(w), std::tie(),
        rotor::codegen::SparseCapable<0>{}, [size, touch](const Example& e, auto& w) {
          float score = 0;
          for (int k = 0; k < touch; ++k) {
            const auto f = static_cast<std::int64_t>(
                mix(static_cast<std::uint64_t>(e.id) * 64 + k) % static_cast<std::uint64_t>(size));
            score += w[f];
          }
          const float g = 0.01f / (1.0f + score * score);
          for (int k = 0; k < touch; ++k) {
            const auto f = static_cast<std::int64_t>(
                mix(static_cast<std::uint64_t>(e.id) * 64 + k) % static_cast<std::uint64_t>(size));
            w[f] -= g * (1.0f + 1e-3f * w[f]);
          }
        });
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    const auto& st = rotor::detail::buffered_stats();
    r.kib = static_cast<double>(st.buffer_bytes) / 1024.0;
    r.density = st.worker_density;
  }
  std::sort(times.begin(), times.end());
  r.seconds = times[times.size() / 2];
  return r;
}

long arg(int argc, char** argv, const char* name, long fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0) {
      return std::atol(argv[i + 1]);
    }
  }
  return fallback;
}

} // namespace

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  const int records = static_cast<int>(arg(argc, argv, "--records", 20000));
  const int touch = static_cast<int>(arg(argc, argv, "--touch", 32));
  const long flush = arg(argc, argv, "--flush", 256);
  const int reps = static_cast<int>(arg(argc, argv, "--reps", 3));
  const bool print = session.rank() == 0;
  if (print) {
    std::printf("%d records x %d elements read and updated, %d ranks\n\n", records, touch,
                session.ranks());
    std::printf("| elements | merge | worker density | dense s | sparse s | dense KiB | sparse "
                "KiB |\n|---|---|---|---|---|---|---|\n");
  }
  for (std::int64_t size = 1 << 14; size <= (1 << 22); size *= 4) {
    for (long every : {0L, flush}) {
      const Result d = run(size, records, touch, every, false, reps);
      const Result s = run(size, records, touch, every, true, reps);
      if (print) {
        const std::string how = every == 0 ? "loop end" : "every " + std::to_string(every);
        std::printf("| %lld | %s | %.4f | %.4f | %.4f | %.0f | %.0f |\n",
                    static_cast<long long>(size), how.c_str(), d.density, d.seconds, s.seconds,
                    d.kib, s.kib);
      }
    }
  }
  return 0;
}
