// Must stay serial: an integer-range loop whose key `user_of[m]` comes from a vector the loop
// itself changes (`user_of[(m + 1) % M] = ...`): the keys the inspector reads before the loop are
// not the ones the body uses, and the order of the writes matters; only index order is right.
#include "soundness.h"

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  std::vector<int> user_of;
  for (const Rating& r : snd::ratings()) {
    user_of.push_back(r.user);
  }
  const int M = static_cast<int>(user_of.size());
  std::vector<std::int64_t> per_user(37);
#pragma rotor parallel_for
  for (int m = 0; m < M; ++m) {
    per_user[user_of[m]] += m;
    user_of[(m + 1) % M] = static_cast<int>((per_user[user_of[m]] + m) % 37);
  }
  snd::Hash h;
  h << per_user << user_of;
  h.print();
  return 0;
}
