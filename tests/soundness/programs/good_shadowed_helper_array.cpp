// Good shape (found reviewing the loop-site names fix): helpers write a global DistArray `W` and
// a global std::vector `V` while the loop's functions have parameters of the same names (other
// arrays). rotor-cc gives the runtime the arrays by name at the loop (`std::tie(W)`), where `W`
// is the parameter: it must give it the global the helper writes (`::W`, `::V`), or keep the
// loop serial. Before, at np 2 each rank kept its own users' rows of the global W. The third
// loop: a member DistArray `M` written by a helper method, a parameter `M` in the loop's method
// (`this->M` at the loop).
#include "soundness.h"

rotor::DistArray<std::int64_t, 1> W({37});
std::vector<std::int64_t> V(37 * 2, 1);

static void bump(int u, int v) {
  W[u] = (W[u] * 3 + v + 1) % 1000003;
}
static void bump_row(int u, int v) {
  V[u * 2 + 1] = (V[u * 2 + 1] * 5 + v + 2) % 1000003;
}

static void epoch(rotor::Dataset<Rating>& ratings, rotor::DistArray<std::int64_t, 1>& W) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    bump(r.user, r.item);
  }
  (void)W;
}

static void epoch_rows(rotor::Dataset<Rating>& ratings, std::vector<std::int64_t>& V) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    bump_row(r.user, r.item);
  }
  (void)V;
}

struct Model {
  rotor::DistArray<std::int64_t, 1> M{{37}};
  void touch(int u, int v) { M[u] = (M[u] * 7 + v + 3) % 1000003; }
  void sweep(rotor::Dataset<Rating>& ratings, rotor::DistArray<std::int64_t, 1>& M) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      touch(r.user, r.item);
    }
    (void)M;
  }
};

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 1> other({37});
  std::vector<std::int64_t> other_rows(37 * 2, 0);
  Model model;
  for (int it = 0; it < 3; ++it) {
    epoch(ratings, other);
    epoch_rows(ratings, other_rows);
    model.sweep(ratings, other);
  }
  snd::Hash h;
  h << W << other << V << other_rows << model.M;
  h.print();
  return 0;
}
