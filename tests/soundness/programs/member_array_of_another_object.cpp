// Shape: a member DistArray written through `this` in a member function called on another object
// of the class: in `peer->bump(r.user, v)`, bump's `M(u, 0)` is the peer's M, not the loop
// object's. rotor-cc once took it for the loop object's own M (indexed by user, so one_d by user)
// and at np 2 rank 0 lost rank 1's writes to the peer's M. The second loop calls the same member
// function on its own object (`bump(...)`, `this->bump(...)`): that M is the loop's, and the loop
// may run in parallel.
#include "soundness.h"

constexpr std::int64_t P = 1000003;

struct Model {
  rotor::DistArray<std::int64_t, 2> M{{40, 2}, "M"};
  Model* peer = nullptr;

  void bump(int u, std::int64_t v) { M(u, 0) = (M(u, 0) * 3 + v) % P; }

  void sweep_peer(rotor::Dataset<Rating>& ratings) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      M(r.user, 1) = (M(r.user, 1) * 5 + r.item) % P;
      peer->bump(r.user, r.value + r.item); // the peer's M
    }
  }

  void sweep_own(rotor::Dataset<Rating>& ratings) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      bump(r.user, r.item);
      this->bump(r.user, r.value);
    }
  }
};

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  Model a, b;
  a.peer = &b;
  for (int it = 0; it < 3; ++it) {
    a.sweep_peer(ratings);
    a.sweep_own(ratings);
  }
  snd::Hash h;
  h << a.M << b.M;
  h.records(ratings);
  h.print();
  return 0;
}
