// Traps for buffered(...) on plain containers: shapes whose result must still equal the serial
// program's. (1) The buffered vector is also written in a helper by its global name: the helper
// would reach the shared vector, not the worker's buffer, so the loop must stay serial. (2) Two
// buffered reference parameters bound to one vector: the runtime must see that the views share
// memory and run the loop serially on the vector itself (no buffers merged twice).
#include "soundness.h"

constexpr std::int64_t P = 1000003;

std::vector<std::int64_t> g_w(37, 1);

static void bump(std::int64_t by) {
  g_w[by % 37] = (g_w[by % 37] * 3 + by) % P;
}

static void helper_writes(rotor::Dataset<Rating>& ratings) {
#pragma rotor parallel_for buffered(g_w)
  for (const Rating& r : ratings) {
    g_w[r.user] = (g_w[r.user] * 5 + r.item) % P;
    bump(r.item);
  }
}

static void two_names(rotor::Dataset<Rating>& ratings, std::vector<std::int64_t>& W,
                      std::vector<std::int64_t>& H) {
#pragma rotor parallel_for buffered(W, H)
  for (const Rating& r : ratings) {
    W[r.user] = (W[r.user] * 7 + H[r.item] + r.item) % P;
    H[r.item] = (H[r.item] * 11 + W[r.user] + r.user) % P;
  }
}

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  std::vector<std::int64_t> W(37, 1);
  for (int it = 0; it < 2; ++it) {
    helper_writes(ratings);
    two_names(ratings, W, W);
  }
  snd::Hash h;
  h << g_w << W;
  h.records(ratings);
  h.print();
  return 0;
}
