#include "MpiCollective.h"

#include <cstdio>
#include <limits>
#include <stdexcept>

namespace rotor_test {
namespace {
int checked(std::size_t n) {
  if (n > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    throw std::length_error("MpiCollective (test): message over 2 GB");
  }
  return static_cast<int>(n);
}
} // namespace

int MpiCollective::rank() const {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int MpiCollective::size() const {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}
void MpiCollective::barrier() {
  MPI_Barrier(MPI_COMM_WORLD);
}
void MpiCollective::allreduce_max(std::int64_t* v, std::size_t n) {
  MPI_Allreduce(MPI_IN_PLACE, v, checked(n), MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
}
void MpiCollective::allreduce_sum(std::int64_t* v, std::size_t n) {
  MPI_Allreduce(MPI_IN_PLACE, v, checked(n), MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
}
void MpiCollective::allreduce_sum(double* v, std::size_t n) {
  MPI_Allreduce(MPI_IN_PLACE, v, checked(n), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}
void MpiCollective::broadcast(void* data, std::size_t bytes, int root) {
  MPI_Bcast(data, checked(bytes), MPI_BYTE, root, MPI_COMM_WORLD);
}
std::vector<char> MpiCollective::allgatherv(const void* data, std::size_t bytes,
                                            std::vector<std::size_t>& offsets) {
  const int p = size();
  int mine = checked(bytes);
  std::vector<int> counts(static_cast<std::size_t>(p));
  MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::vector<int> displs(static_cast<std::size_t>(p));
  offsets.assign(static_cast<std::size_t>(p) + 1, 0);
  for (int r = 0; r < p; ++r) {
    displs[static_cast<std::size_t>(r)] = checked(offsets[static_cast<std::size_t>(r)]);
    offsets[static_cast<std::size_t>(r) + 1] =
        offsets[static_cast<std::size_t>(r)] +
        static_cast<std::size_t>(counts[static_cast<std::size_t>(r)]);
  }
  std::vector<char> out(offsets.back());
  MPI_Allgatherv(data, mine, MPI_BYTE, out.data(), counts.data(), displs.data(), MPI_BYTE,
                 MPI_COMM_WORLD);
  return out;
}
std::vector<std::vector<char>>
MpiCollective::alltoallv(const std::vector<std::vector<char>>& send) {
  const int p = size();
  std::vector<int> scount(static_cast<std::size_t>(p));
  std::vector<int> sdispl(static_cast<std::size_t>(p));
  std::vector<char> sbuf;
  for (int r = 0; r < p; ++r) {
    sdispl[static_cast<std::size_t>(r)] = checked(sbuf.size());
    scount[static_cast<std::size_t>(r)] = checked(send[static_cast<std::size_t>(r)].size());
    sbuf.insert(sbuf.end(), send[static_cast<std::size_t>(r)].begin(),
                send[static_cast<std::size_t>(r)].end());
  }
  std::vector<int> rcount(static_cast<std::size_t>(p));
  MPI_Alltoall(scount.data(), 1, MPI_INT, rcount.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::vector<int> rdispl(static_cast<std::size_t>(p));
  std::size_t total = 0;
  for (int r = 0; r < p; ++r) {
    rdispl[static_cast<std::size_t>(r)] = checked(total);
    total += static_cast<std::size_t>(rcount[static_cast<std::size_t>(r)]);
  }
  std::vector<char> rbuf(total);
  MPI_Alltoallv(sbuf.data(), scount.data(), sdispl.data(), MPI_BYTE, rbuf.data(), rcount.data(),
                rdispl.data(), MPI_BYTE, MPI_COMM_WORLD);
  std::vector<std::vector<char>> out(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) {
    auto first = rbuf.begin() + rdispl[static_cast<std::size_t>(r)];
    out[static_cast<std::size_t>(r)].assign(first, first + rcount[static_cast<std::size_t>(r)]);
  }
  return out;
}
void MpiCollective::abort(const char* message) {
  std::fprintf(stderr, "%s\n", message);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

} // namespace rotor_test
