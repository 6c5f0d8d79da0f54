// Trap: one plain container bound under two names (two reference parameters to one std::vector, to
// one std::vector<std::vector>): the analysis sees two independent arrays and plans in parallel,
// so the runtime must notice that the views share memory (or that the table is staged twice) and
// run the loop serially. Called once with distinct containers (parallel) and once aliased.
#include "soundness.h"

constexpr std::int64_t P = 1000003;

static void rows(rotor::Dataset<Rating>& ratings, std::vector<std::int64_t>& W,
                 std::vector<std::int64_t>& H) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    for (int j = 0; j < 2; ++j) {
      W[r.user * 2 + j] = (W[r.user * 2 + j] * 3 + H[r.item * 2 + j] + r.item) % P;
      H[r.item * 2 + j] = (H[r.item * 2 + j] * 5 + W[r.user * 2 + j] + r.user) % P;
    }
  }
}

static void tables(rotor::Dataset<Rating>& ratings, std::vector<std::vector<std::int64_t>>& a,
                   std::vector<std::vector<std::int64_t>>& b) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    a[r.user][0] = (a[r.user][0] * 7 + b[r.item][1] + r.item) % P;
    b[r.item][1] = (b[r.item][1] * 11 + a[r.user][0] + r.user) % P;
  }
}

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  std::vector<std::int64_t> W(37 * 2, 1), H(37 * 2, 2);
  std::vector<std::vector<std::int64_t>> A(37, std::vector<std::int64_t>(2, 1));
  std::vector<std::vector<std::int64_t>> B(37, std::vector<std::int64_t>(2, 2));
  for (int it = 0; it < 2; ++it) {
    rows(ratings, W, H);
    rows(ratings, W, W);
    tables(ratings, A, B);
    tables(ratings, A, A);
  }
  snd::Hash h;
  h << W << H << A << B;
  h.records(ratings);
  h.print();
  return 0;
}
