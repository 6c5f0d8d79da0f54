// Shape: member function loop writing a scalar member through implicit `this` (order-dependent state).
#include "soundness.h"

constexpr std::int64_t P = 1000003;

struct Counter {
  std::int64_t state = 1;
  rotor::DistArray<std::int64_t, 1> bu{{37}};

  void run(rotor::Dataset<Rating>& ratings) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      bu[r.user] += r.item;
      state = (state * 31 + r.user) % P;
    }
  }
};

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  Counter c;
  for (int it = 0; it < 3; ++it) {
    c.run(ratings);
  }
  snd::Hash h;
  h << c.bu << c.state;
  h.print();
  return 0;
}
