// MPI_Allreduce (sum of floats) time against the ring bound 2(P-1)/P x size / bandwidth, where
// the bandwidth is measured here by a ping-pong between ranks 0 and 1. Prints a Markdown table.
//
//   mpirun -np 4 build/default/bench/buffered/allreduce_bench [--max-mb 256] [--reps 5]

#define OMPI_SKIP_MPICXX 1 // the C API only
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// One-way bandwidth (bytes/s) of a `bytes` message between ranks 0 and 1 (median of `reps`).
double ping_pong(std::size_t bytes, int reps, int rank) {
  std::vector<char> buf(bytes, 1);
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    if (rank == 0) {
      MPI_Send(buf.data(), static_cast<int>(bytes), MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(buf.data(), static_cast<int>(bytes), MPI_BYTE, 1, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(buf.data(), static_cast<int>(bytes), MPI_BYTE, 0, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      MPI_Send(buf.data(), static_cast<int>(bytes), MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
    times.push_back((MPI_Wtime() - t0) / 2);
  }
  double t = median(times);
  MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return static_cast<double>(bytes) / t;
}

} // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  long max_mb = 256;
  int reps = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--max-mb") == 0) {
      max_mb = std::atol(argv[i + 1]);
    } else if (std::strcmp(argv[i], "--reps") == 0) {
      reps = std::atoi(argv[i + 1]);
    }
  }
  if (ranks < 2 || max_mb < 1 || reps < 1) {
    if (rank == 0) {
      std::fprintf(stderr,
                   "allreduce_bench: run with mpirun -np >= 2; --max-mb >= 1, --reps >= 1\n");
    }
    MPI_Finalize();
    return 1;
  }
  const double bw = ping_pong(std::size_t{64} << 20, reps, rank);
  if (rank == 0) {
    std::printf("ranks=%d ping-pong bandwidth (64 MB, one way) = %.2f GB/s\n\n", ranks, bw / 1e9);
    std::printf("| size | allreduce (ms, median of %d) | ring bound (ms) | ratio |\n", reps);
    std::printf("|---|---|---|---|\n");
  }
  for (long mb = 1; mb <= max_mb; mb *= 4) {
    const std::size_t n = static_cast<std::size_t>(mb) << 18; // floats
    std::vector<float> in(n, 1.0f), out(n);
    std::vector<double> times;
    MPI_Allreduce(in.data(), out.data(), static_cast<int>(n), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    for (int r = 0; r < reps; ++r) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      MPI_Allreduce(in.data(), out.data(), static_cast<int>(n), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      double t = MPI_Wtime() - t0;
      MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      times.push_back(t);
    }
    const double bytes = static_cast<double>(n) * sizeof(float);
    const double bound = 2.0 * (ranks - 1) / ranks * bytes / bw;
    const double t = median(times);
    if (rank == 0) {
      std::printf("| %ld MB | %.2f | %.2f | %.2fx |\n", mb, t * 1e3, bound * 1e3, t / bound);
      std::fflush(stdout);
    }
  }
  MPI_Finalize();
  return 0;
}
