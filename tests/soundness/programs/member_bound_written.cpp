// Must stay serial: an integer-range loop whose bound is a member of the loop's object
// (`m < M`, as GibbsLDA++ writes it) that a method the loop calls changes (`shrink()`): the
// inspector's count, read before the loop, would not be the loop's. Serial, it runs as written
// and re-reads M each iteration, so it stops where the serial program stops.
#include "soundness.h"

namespace {

struct Counts {
  int M = 0;
  std::vector<int> user_of;
  std::vector<std::int64_t> per_user;

  void shrink(int m) {
    if (per_user[user_of[m]] % 5 == 3) {
      M -= 7;
    }
  }
  void run() {
#pragma rotor parallel_for
    for (int m = 0; m < M; ++m) {
      per_user[user_of[m]] += m + 1;
      shrink(m);
    }
  }
};

} // namespace

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  Counts c;
  for (const Rating& r : snd::ratings()) {
    c.user_of.push_back(r.user);
  }
  c.M = static_cast<int>(c.user_of.size());
  c.per_user.assign(37, 0);
  c.run();
  snd::Hash h;
  h << c.M << c.per_user;
  h.print();
  return 0;
}
