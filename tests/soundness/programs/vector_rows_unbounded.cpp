// Trap: a std::vector used as rows whose column reaches one past the row (`j <= k`): user u also
// writes the first element of user u + 1's row, so the loop must stay serial.
#include "soundness.h"

constexpr std::int64_t P = 1000003;

static void epoch(rotor::Dataset<Rating>& ratings, std::vector<std::int64_t>& W, int k) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    for (int j = 0; j <= k; ++j) {
      W[r.user * k + j] = (W[r.user * k + j] * 3 + r.item + j) % P;
    }
  }
}

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  const int k = 4;
  std::vector<std::int64_t> W(37 * k + 1, 1); // one spare element for the last user's j == k
  for (int it = 0; it < 3; ++it) {
    epoch(ratings, W, k);
  }
  snd::Hash h;
  h << W;
  h.records(ratings);
  h.print();
  return 0;
}
