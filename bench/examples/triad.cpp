// rotor-triad: the machine's memory bandwidth as STREAM's triad measures it (a[i] = b[i] + s * c[i]
// over arrays far larger than the caches, one contiguous slice per thread), so that
// bench/examples/run.sh can put the examples' achieved bandwidth next to what the memory gives
// in the same run. Prints one line:
//
//   triad threads=2 mib_per_array=256 best_gb_per_s=21.3 median_gb_per_s=20.9
//
// Bytes counted as STREAM counts them: 24 per element (two 8-byte reads, one 8-byte write; the
// write-allocate read is not counted). Usage: rotor-triad [--threads 2] [--mib 256] [--reps 10]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Options {
  int threads = 2;
  long mib = 256; // per array: three arrays of 256 MiB stay far outside any L3 of today
  int reps = 10;
};

long parse_positive(const char* flag, const char* value) {
  char* end = nullptr;
  const long v = std::strtol(value, &end, 10);
  if (end == value || *end != '\0' || v <= 0) {
    std::fprintf(stderr, "rotor-triad: %s: expected a positive integer, got '%s'\n", flag, value);
    std::exit(2);
  }
  return v;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc || (a != "--threads" && a != "--mib" && a != "--reps")) {
      std::fprintf(stderr, "usage: rotor-triad [--threads 2] [--mib 256] [--reps 10]\n");
      std::exit(2);
    }
    const long v = parse_positive(argv[i], argv[i + 1]);
    ++i;
    if (a == "--threads") {
      o.threads = static_cast<int>(std::min(v, 1024L));
    } else if (a == "--mib") {
      o.mib = v;
    } else {
      o.reps = static_cast<int>(std::min(v, 10000L));
    }
  }
  return o;
}

/// Runs `fn(begin, end)` on `threads` threads over [0, n) in contiguous slices.
template <class Fn> void in_parallel(int threads, std::size_t n, Fn fn) {
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    const std::size_t begin = n * static_cast<std::size_t>(t) / static_cast<std::size_t>(threads);
    const std::size_t end = n * static_cast<std::size_t>(t + 1) / static_cast<std::size_t>(threads);
    pool.emplace_back([=] { fn(begin, end); });
  }
  for (std::thread& th : pool) {
    th.join();
  }
}

} // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  const std::size_t n = static_cast<std::size_t>(o.mib) * 1024 * 1024 / sizeof(double);
  std::unique_ptr<double[]> a(new double[n]), b(new double[n]), c(new double[n]);
  // First touch by the thread that later streams the slice (NUMA placement as in STREAM).
  in_parallel(o.threads, n, [&](std::size_t lo, std::size_t hi) {
    for (std::size_t i = lo; i < hi; ++i) {
      a[i] = 0.0;
      b[i] = 1.0;
      c[i] = 2.0;
    }
  });
  const double s = 3.0;
  std::vector<double> rates;
  for (int rep = 0; rep < o.reps; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    in_parallel(o.threads, n, [&](std::size_t lo, std::size_t hi) {
      double* __restrict pa = a.get();
      const double* __restrict pb = b.get();
      const double* __restrict pc = c.get();
      for (std::size_t i = lo; i < hi; ++i) {
        pa[i] = pb[i] + s * pc[i];
      }
    });
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    rates.push_back(24.0 * static_cast<double>(n) / seconds / 1e9);
  }
  if (a[n / 2] != 7.0) { // b + s * c = 1 + 3 * 2: the loop ran and was not optimised away
    std::fprintf(stderr, "rotor-triad: wrong result %g\n", a[n / 2]);
    return 1;
  }
  std::sort(rates.begin(), rates.end());
  std::printf("triad threads=%d mib_per_array=%ld best_gb_per_s=%.3g median_gb_per_s=%.3g\n",
              o.threads, o.mib, rates.back(), rates[rates.size() / 2]);
  return 0;
}
