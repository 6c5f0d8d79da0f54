// Good shape (funk-svd's predict(u, i), finding F3): the loop calls a non-const member function
// of its own object that only reads members; the call is no write to the object, so the loop
// must stay parallel. The second loop calls a member function that writes a member (`calls`):
// must stay serial.
#include "soundness.h"

constexpr std::int64_t P = 1000003;

class Model {
public:
  rotor::DistArray<std::int64_t, 2> W{{37, 3}};
  rotor::DistArray<std::int64_t, 2> H{{29, 3}};
  std::int64_t scale = 3;
  std::int64_t calls = 0;

  std::int64_t predict(int u, int i) { // not const, writes nothing
    std::int64_t s = 0;
    for (int k = 0; k < 3; ++k) {
      s = (s + W(u, k) * H(i, k)) % P;
    }
    return s * scale % P;
  }
  std::int64_t counted(int u) {
    calls += 1;
    return (W(u, 0) + calls) % P;
  }

  void epoch(rotor::Dataset<Rating>& ratings) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      const std::int64_t e = (predict(r.user, r.item) + r.item) % P;
      for (int k = 0; k < 3; ++k) {
        W(r.user, k) = (W(r.user, k) * 7 + e + k) % P;
      }
    }
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      W(r.user, 1) = (W(r.user, 1) + counted(r.user)) % P;
    }
  }
};

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  Model m;
  for (int i = 0; i < 29; ++i) {
    for (int k = 0; k < 3; ++k) {
      m.H(i, k) = i * 3 + k + 1;
    }
  }
  for (int it = 0; it < 2; ++it) {
    m.epoch(ratings);
  }
  snd::Hash h;
  h << m.W << m.H << m.calls;
  h.print();
  return 0;
}
