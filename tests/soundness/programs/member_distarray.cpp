// Shape: loop in a member function reading/writing DistArray members through implicit `this`.
#include "soundness.h"

constexpr std::int64_t P = 1000003;

struct Model {
  rotor::DistArray<std::int64_t, 2> W{{37, 2}};
  rotor::DistArray<std::int64_t, 1> bias{{29}};

  void epoch(rotor::Dataset<Rating>& ratings) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      W(r.user, 0) = (W(r.user, 0) * 3 + bias[r.item] + 1) % P;
      bias[r.item] = (bias[r.item] * 5 + W(r.user, 1) + r.user) % P;
      W(r.user, 1) = (W(r.user, 1) + W(r.user, 0)) % P;
    }
  }
};

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  Model m;
  for (int it = 0; it < 3; ++it) {
    m.epoch(ratings);
  }
  snd::Hash h;
  h << m.W << m.bias;
  h.print();
  return 0;
}
