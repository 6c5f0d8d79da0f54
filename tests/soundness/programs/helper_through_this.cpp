// Shape: member function loop calling a member helper (through `this`) that writes member state.
#include "soundness.h"

constexpr std::int64_t P = 1000003;

class Trainer {
public:
  rotor::DistArray<std::int64_t, 1> bu{{37}};
  std::vector<std::int64_t> seen = std::vector<std::int64_t>(29, 0);
  std::int64_t last = 0;

  void epoch(rotor::Dataset<Rating>& ratings) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      bu[r.user] += r.item;
      this->note(r.item, r.user);
    }
  }

private:
  void note(int item, int user) {
    seen[item] = (seen[item] * 3 + user) % P;
    last = (last * 31 + item) % P;
  }
};

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  Trainer t;
  for (int it = 0; it < 3; ++it) {
    t.epoch(ratings);
  }
  snd::Hash h;
  h << t.bu << t.seen << t.last;
  h.print();
  return 0;
}
