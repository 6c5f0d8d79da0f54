// Shape: member function loop writing through a raw-pointer member (`counts_[r.item]`) next to a DistArray member.
#include "soundness.h"

constexpr int P = 1000003;

class Table {
public:
  explicit Table(int* counts) : counts_(counts) {}
  void pass(rotor::Dataset<Rating>& ratings) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      bu_[r.user] += 1;
      counts_[r.item] = (counts_[r.item] * 3 + r.user) % P;
    }
  }
  rotor::DistArray<std::int64_t, 1> bu_{{37}};

private:
  int* counts_;
};

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  std::vector<int> counts(29, 1);
  Table t(counts.data());
  for (int it = 0; it < 3; ++it) {
    t.pass(ratings);
  }
  snd::Hash h;
  h << t.bu_ << counts;
  h.print();
  return 0;
}
