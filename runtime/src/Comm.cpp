#include "Comm.h"

#include "Failure.h"
#include "rotor/runtime/detail/Watchdog.h"

#include "rotor/distarray/detail/Collective.h"

#define OMPI_SKIP_MPICXX 1 // the C API only
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

namespace rotor::detail {
namespace {

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    int rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    report_mpi_error(rank, what, text);
  }
}

int to_int_count(std::size_t n, const char* what) {
  if (n > static_cast<std::size_t>(INT_MAX)) {
    throw std::length_error(std::string("rotor: ") + what + ": message of " + std::to_string(n) +
                            " bytes exceeds MPI's int count");
  }
  return static_cast<int>(n);
}

MPI_Datatype datatype_of(ElementType element_type) {
  switch (element_type) {
  case ElementType::f32:
    return MPI_FLOAT;
  case ElementType::f64:
    return MPI_DOUBLE;
  case ElementType::i32:
    return MPI_INT32_T;
  case ElementType::i64:
    return MPI_INT64_T;
  case ElementType::u32:
    return MPI_UINT32_T;
  case ElementType::u64:
    return MPI_UINT64_T;
  }
  unknown_element_type(element_type);
}

} // namespace

Comm::Comm(bool use_mpi) : use_mpi_(use_mpi) {
  if (!use_mpi_) {
    return;
  }
  int already = 0;
  MPI_Initialized(&already);
  if (!already) {
    int provided = 0;
    check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided), "MPI_Init_thread");
    initialised_here_ = true;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

Comm::~Comm() {
  if (initialised_here_) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) {
      MPI_Finalize();
    }
  }
}

Comm::Request Comm::isend(const void* data, std::size_t bytes, int dest, int tag) {
  auto* req = new MPI_Request;
  check(MPI_Isend(data, to_int_count(bytes, "isend"), MPI_BYTE, dest, tag, MPI_COMM_WORLD, req),
        "MPI_Isend");
  return Request{req, dest};
}

Comm::Request Comm::irecv(void* data, std::size_t bytes, int source, int tag) {
  auto* req = new MPI_Request;
  check(MPI_Irecv(data, to_int_count(bytes, "irecv"), MPI_BYTE, source, tag, MPI_COMM_WORLD, req),
        "MPI_Irecv");
  return Request{req, source};
}

void Comm::wait_all(std::vector<Request>& requests) {
  for (Request& r : requests) {
    auto* req = static_cast<MPI_Request*>(r.handle);
    if (req) {
      WatchdogWait wait("MPI_Wait", r.peer);
      check(MPI_Wait(req, MPI_STATUS_IGNORE), "MPI_Wait");
      delete req;
      r.handle = nullptr;
    }
  }
  requests.clear();
}

bool Comm::test_all(std::vector<Request>& requests) {
  bool all = true;
  bool some = false;
  int waiting_for = -1;
  for (Request& r : requests) {
    auto* req = static_cast<MPI_Request*>(r.handle);
    if (!req) {
      continue;
    }
    int done = 0;
    check(MPI_Test(req, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done) {
      delete req;
      r.handle = nullptr;
      some = true;
    } else {
      if (all) {
        waiting_for = r.peer;
      }
      all = false;
    }
  }
  if (some) {
    progress_beat();
  }
  watchdog_pending_peer(waiting_for); // the engine polls; a stall names this rank
  if (all) {
    requests.clear();
  }
  return all;
}

void Comm::barrier() {
  if (use_mpi_) {
    WatchdogWait wait("MPI_Barrier", -1);
    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  }
}

#define ROTOR_ALLREDUCE(TYPE, MPITYPE, OP)                                                         \
  if (use_mpi_ && size_ > 1 && count > 0) {                                                        \
    WatchdogWait wait("MPI_Allreduce", -1);                                                        \
    check(MPI_Allreduce(MPI_IN_PLACE, values, to_int_count(count, "allreduce"), MPITYPE, OP,       \
                        MPI_COMM_WORLD),                                                           \
          "MPI_Allreduce");                                                                        \
  }

void Comm::allreduce_sum(double* values, std::size_t count) {
  ROTOR_ALLREDUCE(double, MPI_DOUBLE, MPI_SUM)
}
void Comm::allreduce_sum(float* values, std::size_t count) {
  ROTOR_ALLREDUCE(float, MPI_FLOAT, MPI_SUM)
}
void Comm::allreduce_sum(std::int64_t* values, std::size_t count) {
  ROTOR_ALLREDUCE(std::int64_t, MPI_INT64_T, MPI_SUM)
}
void Comm::allreduce_max(std::int64_t* values, std::size_t count) {
  ROTOR_ALLREDUCE(std::int64_t, MPI_INT64_T, MPI_MAX)
}
void Comm::allreduce_min(std::int64_t* values, std::size_t count) {
  ROTOR_ALLREDUCE(std::int64_t, MPI_INT64_T, MPI_MIN)
}
void Comm::allreduce_sum_typed(void* values, std::size_t count, ElementType element_type) {
  ROTOR_ALLREDUCE(void, datatype_of(element_type), MPI_SUM)
}
#undef ROTOR_ALLREDUCE

void Comm::broadcast(void* data, std::size_t bytes, int root) {
  if (use_mpi_ && size_ > 1 && bytes > 0) {
    WatchdogWait wait("MPI_Bcast", root == rank_ ? -1 : root);
    check(MPI_Bcast(data, to_int_count(bytes, "broadcast"), MPI_BYTE, root, MPI_COMM_WORLD),
          "MPI_Bcast");
  }
}

void Comm::allgatherv_into(const void* data, std::size_t bytes, std::vector<char>& out,
                           std::vector<std::size_t>& offsets) {
  if (!use_mpi_ || size_ == 1) {
    offsets = {0, bytes};
    const char* p = static_cast<const char*>(data);
    out.assign(p, p + bytes);
    return;
  }
  WatchdogWait wait("MPI_Allgatherv", -1);
  std::int64_t mine = static_cast<std::int64_t>(bytes);
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(size_));
  check(MPI_Allgather(&mine, 1, MPI_INT64_T, sizes.data(), 1, MPI_INT64_T, MPI_COMM_WORLD),
        "MPI_Allgather");
  offsets.assign(static_cast<std::size_t>(size_) + 1, 0);
  std::vector<int> counts(static_cast<std::size_t>(size_)), displs(static_cast<std::size_t>(size_));
  for (int r = 0; r < size_; ++r) {
    offsets[r + 1] = offsets[r] + static_cast<std::size_t>(sizes[r]);
    counts[r] = to_int_count(static_cast<std::size_t>(sizes[r]), "allgatherv");
    displs[r] = to_int_count(offsets[r], "allgatherv");
  }
  out.resize(offsets.back());
  check(MPI_Allgatherv(data, counts[rank_], MPI_BYTE, out.data(), counts.data(), displs.data(),
                       MPI_BYTE, MPI_COMM_WORLD),
        "MPI_Allgatherv");
}

std::vector<char> Comm::allgatherv(const void* data, std::size_t bytes,
                                   std::vector<std::size_t>& offsets) {
  std::vector<char> out;
  allgatherv_into(data, bytes, out, offsets);
  return out;
}

std::vector<std::vector<char>> Comm::alltoallv(const std::vector<std::vector<char>>& send) {
  if (!use_mpi_ || size_ == 1) {
    return send;
  }
  WatchdogWait wait("MPI_Alltoall", -1);
  const auto n = static_cast<std::size_t>(size_);
  std::vector<std::int64_t> send_sizes(n), recv_sizes(n);
  for (std::size_t r = 0; r < n; ++r) {
    send_sizes[r] = static_cast<std::int64_t>(send[r].size());
  }
  check(MPI_Alltoall(send_sizes.data(), 1, MPI_INT64_T, recv_sizes.data(), 1, MPI_INT64_T,
                     MPI_COMM_WORLD),
        "MPI_Alltoall");
  std::vector<std::vector<char>> recv(n);
  std::vector<Request> reqs;
  for (std::size_t r = 0; r < n; ++r) {
    recv[r].resize(static_cast<std::size_t>(recv_sizes[r]));
    if (!recv[r].empty()) {
      reqs.push_back(irecv(recv[r].data(), recv[r].size(), static_cast<int>(r), 77));
    }
  }
  for (std::size_t r = 0; r < n; ++r) {
    if (!send[r].empty()) {
      reqs.push_back(isend(send[r].data(), send[r].size(), static_cast<int>(r), 77));
    }
  }
  wait_all(reqs);
  return recv;
}

void Comm::abort(const char* message) {
  if (std::strncmp(message, "[rank ", 6) == 0) {
    std::fprintf(stderr, "%s\n", message);
  } else {
    std::fprintf(stderr, "[rank %d] %s\n", rank_, message);
  }
  std::fflush(stderr);
  if (use_mpi_) {
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  std::abort();
}

} // namespace rotor::detail
