// The main of Rotor's MPI-aware test binaries: creates the Session (which strips --rotor-*
// flags and initialises MPI under mpirun), runs the tests, and makes every rank return the same
// status (any rank's failure fails all).
#include "rotor/distarray/detail/Collective.h"
#include "rotor/runtime/Session.h"

#include <gtest/gtest.h>

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  std::int64_t failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  rotor::detail::collective().allreduce_max(&failed, 1);
  return failed ? 1 : 0;
}
