// The deliberately unsound loop of ValidateLoops.h in a program, for run_failure_test.sh:
// under --rotor-validate at np > 1 rank 0 must stop the job with one line naming the loop and
// the element. Usage: runtime_validate_program unsound [--rotor-...]
// (prints "finished" only if the loop was not stopped).

#include "ValidateLoops.h"

#include <atomic>

using namespace rotor;
using namespace rotor::test;

int main(int argc, char** argv) {
  Session session(argc, argv);
  Dataset<Tagged> data = share_of(make_tagged(40, 5, 7, 3));
  DistArray<double, 2> W({5, 2});
  W(0, 0) = 1;
  std::atomic<int> arrived{0};
  run_unsound_loop(data, W, arrived);
  session.out() << "finished" << std::endl;
  return 0;
}
