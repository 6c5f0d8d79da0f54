// Good shape (issue 16, "serial code after a loop sees the loop's results"): plain loops with no
// pragma that depend on the order of the records (a value carried from record to record), each
// after a parallel loop over the same dataset, after a shuffle and after a push_back. The serial
// code must see the records in the dataset's order, never in the order the parallel loop ran
// them; the serial replay build must do the same (it runs each recorded loop in the recorded
// order and must put the dataset's order back for the plain loops that follow).
#include "soundness.h"

namespace {
void rotate(rotor::Dataset<Rating>& ratings, rotor::DistArray<double, 2>& W,
            rotor::DistArray<double, 2>& H) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    double e = r.value;
    for (int k = 0; k < 3; ++k) {
      e -= W(r.user, k) * H(r.item, k);
    }
    for (int k = 0; k < 3; ++k) {
      const double w = W(r.user, k);
      W(r.user, k) += 0.01 * e * H(r.item, k);
      H(r.item, k) += 0.01 * e * w;
    }
  }
}

/// Depends on the order: each record's weight is the previous record's user.
std::int64_t carried(const rotor::Dataset<Rating>& ratings) {
  std::int64_t sum = 0;
  int previous = 1;
  for (const Rating& r : ratings) {
    sum = sum * 31 + previous * r.item + r.value;
    sum %= 1000000007;
    previous = r.user + 1;
  }
  return sum;
}
} // namespace

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<double, 2> W({37, 3});
  rotor::DistArray<double, 2> H({29, 3});
  for (int k = 0; k < 3; ++k) {
    for (int u = 0; u < 37; ++u) {
      W(u, k) = 0.1 + 0.01 * u;
    }
    for (int i = 0; i < 29; ++i) {
      H(i, k) = 0.2 - 0.001 * i;
    }
  }
  snd::Hash h;
  rotate(ratings, W, H);
  rotate(ratings, W, H);
  h << carried(ratings);
  ratings.shuffle(7);
  rotate(ratings, W, H);
  h << carried(ratings);
  ratings.push_back(Rating{3, 4, 5});
  rotate(ratings, W, H);
  h << carried(ratings);
  h << W << H;
  h.records(ratings);
  h.print();
  return 0;
}
