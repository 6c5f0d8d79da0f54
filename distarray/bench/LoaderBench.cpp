// Loader throughput and partition balance (prints tables; not a test).
//
//   distarray_bench [--mb=N] [--dir=/tmp]
//
// Writes generated files of about N MB (default 100) in --dir, then times each loader (best of
// 3, warm page cache) against a plain iostream parser of the same CSV, and prints the load
// imbalance (max/mean block records) of equal ranges vs histogram partitioning on Zipf keys.
#include "rotor/distarray/Loaders.h"
#include "rotor/distarray/Partition.h"
#include "rotor/distarray/detail/CounterRng.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <utility>
#include <vector>

namespace {

struct Rating {
  std::int32_t user;
  std::int32_t item;
  float value;
};

struct Token {
  std::int32_t doc;
  std::int32_t word;
  std::int32_t topic;
};

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

/// Best wall time and best CPU time (user + system) of 3 runs. On a shared machine the CPU
/// time is the steadier number.
std::pair<double, double> best_seconds(const std::function<std::size_t()>& run,
                                       std::size_t& records) {
  double wall = 1e30;
  double cpu = 1e30;
  for (int i = 0; i < 3; ++i) {
    const double c0 = cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    records = run();
    wall = std::min(wall,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    cpu = std::min(cpu, cpu_seconds() - c0);
  }
  return {wall, cpu};
}

std::uint64_t bits(std::uint64_t stream, std::uint64_t i) {
  return rotor::detail::counter_bits(7, stream, i);
}

std::string write_csv(const std::string& dir, std::size_t bytes) {
  const std::string path = dir + "/rotor_bench_ratings.csv";
  std::ofstream out(path);
  char line[64];
  std::size_t written = 0;
  for (std::uint64_t i = 0; written < bytes; ++i) {
    const int n = std::snprintf(
        line, sizeof line, "%u,%u,%.2f\n", static_cast<unsigned>(bits(1, i) % 1000000),
        static_cast<unsigned>(bits(2, i) % 100000), static_cast<double>(bits(3, i) % 500) / 100.0);
    out.write(line, n);
    written += static_cast<std::size_t>(n);
  }
  return path;
}

std::string write_bow(const std::string& dir, std::size_t bytes) {
  const std::string path = dir + "/rotor_bench_docword.txt";
  std::string body;
  body.reserve(bytes + 64);
  std::size_t nnz = 0;
  const int docs = static_cast<int>(bytes / 1200) + 1;
  for (int d = 1; d <= docs && body.size() < bytes; ++d) {
    int word = 0;
    for (int k = 0; k < 100; ++k) {
      word += 1 + static_cast<int>(
                      bits(4, static_cast<std::uint64_t>(d) * 100 + static_cast<std::uint64_t>(k)) %
                      90);
      body += std::to_string(d) + " " + std::to_string(word) + " " +
              std::to_string(1 + bits(5, nnz) % 3) + "\n";
      ++nnz;
    }
  }
  std::ofstream(path) << docs << "\n10000\n" << nnz << "\n" << body;
  return path;
}

std::string write_libsvm(const std::string& dir, std::size_t bytes) {
  const std::string path = dir + "/rotor_bench.libsvm";
  std::ofstream out(path);
  std::size_t written = 0;
  char buf[32];
  for (std::uint64_t i = 0; written < bytes; ++i) {
    std::string line = bits(6, i) % 2 ? "+1" : "-1";
    int index = 0;
    for (int k = 0; k < 14; ++k) {
      index += 1 + static_cast<int>(bits(7, i * 14 + static_cast<std::uint64_t>(k)) % 9);
      std::snprintf(buf, sizeof buf, " %d:%.3f", index,
                    static_cast<double>(bits(8, i + static_cast<std::uint64_t>(k)) % 1000) /
                        1000.0);
      line += buf;
    }
    line += "\n";
    out << line;
    written += line.size();
  }
  return path;
}

/// The baseline: std::getline + std::istringstream, the usual hand-written loader.
std::size_t iostream_csv(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::vector<Rating> out;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    Rating r{};
    char c1 = 0;
    char c2 = 0;
    s >> r.user >> c1 >> r.item >> c2 >> r.value;
    out.push_back(r);
  }
  return out.size();
}

void loader_table(const std::string& dir, std::size_t bytes) {
  std::printf("Generating ~%zu MB inputs in %s ...\n", bytes >> 20, dir.c_str());
  const std::string csv = write_csv(dir, bytes);
  const std::string bow = write_bow(dir, bytes);
  const std::string svm = write_libsvm(dir, bytes);
  const std::string bin = dir + "/rotor_bench_ratings.bin";
  rotor::save_binary(rotor::load_csv<Rating>(csv), bin);
  struct Row {
    const char* name;
    std::string path;
    std::function<std::size_t()> run;
  };
  const std::vector<Row> rows = {
      {"iostream CSV (baseline)", csv, [&] { return iostream_csv(csv); }},
      {"load_csv", csv, [&] { return rotor::load_csv<Rating>(csv).local_size(); }},
      {"load_uci_bow", bow, [&] { return rotor::load_uci_bow<Token>(bow).local_size(); }},
      {"load_libsvm", svm, [&] { return rotor::load_libsvm(svm).examples.local_size(); }},
      {"load_binary", bin, [&] { return rotor::load_binary<Rating>(bin).local_size(); }},
  };
  std::printf("\n| loader | file MB | records | wall s (best of 3) | MB/s wall | CPU s (best of 3) "
              "| MB/s CPU |\n|---|---|---|---|---|---|---|\n");
  for (const Row& r : rows) {
    std::size_t records = 0;
    const auto [wall, cpu] = best_seconds(r.run, records);
    const double mb = static_cast<double>(std::filesystem::file_size(r.path)) / 1e6;
    std::printf("| %s | %.1f | %zu | %.3f | %.0f | %.3f | %.0f |\n", r.name, mb, records, wall,
                mb / wall, cpu, mb / cpu);
  }
  for (const auto& p : {csv, bow, svm, bin}) {
    std::filesystem::remove(p);
  }
}

/// Zipf(s) key sampler over [0, n) by inverse CDF.
class Zipf {
public:
  Zipf(std::int64_t n, double s) : cdf_(static_cast<std::size_t>(n)) {
    double acc = 0;
    for (std::int64_t k = 0; k < n; ++k) {
      acc += 1.0 / std::pow(static_cast<double>(k + 1), s);
      cdf_[static_cast<std::size_t>(k)] = acc;
    }
    for (double& c : cdf_) {
      c /= acc;
    }
  }
  std::int32_t sample(double u) const {
    return static_cast<std::int32_t>(std::lower_bound(cdf_.begin(), cdf_.end(), u) - cdf_.begin());
  }

private:
  std::vector<double> cdf_;
};

std::vector<std::int64_t> sums(const std::vector<std::int64_t>& counts,
                               const rotor::Boundaries& b) {
  std::vector<std::int64_t> s(static_cast<std::size_t>(b.blocks()), 0);
  for (std::size_t v = 0; v < counts.size(); ++v) {
    s[static_cast<std::size_t>(b.block_of(static_cast<std::int64_t>(v)))] += counts[v];
  }
  return s;
}

void zipf_table() {
  const std::int64_t users = 100000;
  const std::int64_t items = 20000;
  const std::size_t n = 2000000;
  std::printf("\nPartition balance: %zu records, users ~ Zipf(s) over %lld keys, items ~ Zipf(s) "
              "over %lld keys; imbalance = max/mean records per block (1.00 is perfect).\n",
              n, static_cast<long long>(users), static_cast<long long>(items));
  std::printf("\n| s | blocks | equal ranges | histogram | remap + equal | remap + histogram | "
              "2-D PxP equal | 2-D PxP histogram |\n|---|---|---|---|---|---|---|---|\n");
  for (double s : {0.8, 1.0, 1.2}) {
    const Zipf zu(users, s);
    const Zipf zi(items, s);
    std::vector<Rating> recs(n);
    for (std::size_t i = 0; i < n; ++i) {
      recs[i] = {zu.sample(rotor::detail::counter_uniform(11, 1, i)),
                 zi.sample(rotor::detail::counter_uniform(11, 2, i)), 1.f};
    }
    rotor::Dataset<Rating> d(recs);
    const auto counts = d.histogram(&Rating::user);
    rotor::Dataset<Rating> remapped(recs);
    remapped.remap(&Rating::user, 3);
    remapped.remap(&Rating::item, 4);
    const auto rcounts = remapped.histogram(&Rating::user);
    for (int p : {4, 16, 64}) {
      const auto ext = static_cast<std::int64_t>(counts.size());
      const double eq = rotor::imbalance(sums(counts, rotor::equal_boundaries(ext, p)));
      const double hi = rotor::imbalance(sums(counts, rotor::balanced_boundaries(counts, p)));
      const double req = rotor::imbalance(
          sums(rcounts, rotor::equal_boundaries(static_cast<std::int64_t>(rcounts.size()), p)));
      const double rhi = rotor::imbalance(sums(rcounts, rotor::balanced_boundaries(rcounts, p)));
      const int q = p == 64 ? 8 : p == 16 ? 4 : 2; // 2-D grid of q x q = p blocks
      rotor::BlockGrid eq_grid{{rotor::equal_boundaries(d.extent(&Rating::user), q),
                                rotor::equal_boundaries(d.extent(&Rating::item), q)}};
      rotor::BlockGrid hi_grid{{rotor::histogram_partition(d, &Rating::user, q),
                                rotor::histogram_partition(d, &Rating::item, q)}};
      const double eq2 = rotor::imbalance(
          rotor::bucket_by_block(d, eq_grid, &Rating::user, &Rating::item).global_counts);
      const double hi2 = rotor::imbalance(
          rotor::bucket_by_block(d, hi_grid, &Rating::user, &Rating::item).global_counts);
      std::printf("| %.1f | %d | %.2f | %.2f | %.2f | %.2f | %.2f (%dx%d) | %.2f |\n", s, p, eq, hi,
                  req, rhi, eq2, q, q, hi2);
    }
  }
}

} // namespace

int main(int argc, char** argv) {
  std::size_t mb = 100;
  std::string dir = std::filesystem::temp_directory_path().string();
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--mb=", 5) == 0) {
      mb = static_cast<std::size_t>(std::atol(argv[i] + 5));
    } else if (std::strncmp(argv[i], "--dir=", 6) == 0) {
      dir = argv[i] + 6;
    } else {
      std::fprintf(stderr, "usage: %s [--mb=N] [--dir=DIR]\n", argv[0]);
      return 2;
    }
  }
  loader_table(dir, mb << 20);
  zipf_table();
  return 0;
}
