// Good shape (funk-svd, issue 16): scalar temporaries declared before the loop (`int u_id, i_id;
// double error;`) and assigned before any read in every iteration, one of them inside an inner
// loop: privatised per worker, and `u_id = r.user` keys W's subscripts as `const int u = r.user`
// would; must stay parallel (rotation). The second loop's `last` is assigned under a condition
// and then read (it carries a value from record to record): must stay serial.
#include "soundness.h"

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<double, 2> W({37, 4});
  rotor::DistArray<double, 2> H({29, 4});
  for (int k = 0; k < 4; ++k) {
    for (int u = 0; u < 37; ++u) {
      W(u, k) = 0.1 + 0.01 * u;
    }
    for (int i = 0; i < 29; ++i) {
      H(i, k) = 0.2 - 0.001 * i;
    }
  }
  int u_id, i_id;
  double error, correction;
  std::int64_t key_sum = 0; // an integer reduction: its sum is the same in any order
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      u_id = r.user;
      i_id = r.item;
      error = r.value;
      for (int k = 0; k < 4; ++k) {
        error -= W(u_id, k) * H(i_id, k);
      }
      key_sum += u_id * 100 + i_id;
      for (int k = 0; k < 4; ++k) {
        correction = 0.01 * error * H(i_id, k);
        H(i_id, k) += 0.01 * error * W(u_id, k);
        W(u_id, k) += correction;
      }
    }
  }
  int last = 0;
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    if (r.value > 3) {
      last = r.user;
    }
    W(last, 0) += 0.001 * r.value;
  }
  snd::Hash h;
  h << W << H << key_sum << last;
  h.print();
  return 0;
}
