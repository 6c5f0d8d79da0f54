#pragma once
// A test-only MPI implementation of rotor::detail::Collective, so distarray's MPI tests do not
// depend on runtime/ (which installs its own through rotor::Session).

#include "rotor/distarray/detail/Collective.h"

#include <mpi.h>

namespace rotor_test {

class MpiCollective final : public rotor::detail::Collective {
public:
  int rank() const override;
  int size() const override;
  void barrier() override;
  void allreduce_max(std::int64_t* values, std::size_t count) override;
  void allreduce_sum(std::int64_t* values, std::size_t count) override;
  void allreduce_sum(double* values, std::size_t count) override;
  void broadcast(void* data, std::size_t bytes, int root) override;
  std::vector<char> allgatherv(const void* data, std::size_t bytes,
                               std::vector<std::size_t>& offsets) override;
  std::vector<std::vector<char>> alltoallv(const std::vector<std::vector<char>>& send) override;
  [[noreturn]] void abort(const char* message) override;
};

} // namespace rotor_test
