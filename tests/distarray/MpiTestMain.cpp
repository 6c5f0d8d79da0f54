// main() for distarray's MPI tests: initialises MPI, installs the test MpiCollective, runs the
// tests on every rank, and fails on every rank if any rank failed. Only rank 0 prints progress.
#include "MpiCollective.h"

#include <gtest/gtest.h>

#include <cstdio>

namespace {
/// On ranks other than 0: prints only failures, prefixed with the rank.
class FailurePrinter : public ::testing::EmptyTestEventListener {
public:
  explicit FailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (r.failed()) {
      std::fprintf(stderr, "[rank %d] %s:%d: Failure\n%s\n", rank_,
                   r.file_name() ? r.file_name() : "?", r.line_number(), r.summary());
    }
  }

private:
  int rank_;
};
} // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  rotor_test::MpiCollective collective;
  rotor::detail::set_collective(&collective);
  ::testing::InitGoogleTest(&argc, argv);
  if (collective.rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailurePrinter(collective.rank()));
  }
  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (failed && collective.rank() == 0) {
    std::fprintf(stderr, "distarray MPI test: failures on some rank (rerun to see which)\n");
  }
  rotor::detail::set_collective(nullptr);
  MPI_Finalize();
  return failed;
}
