// Shape: the loop in a function template instance writes a std::vector parameter (`seen[r.item]`) and a scalar reference.
#include "soundness.h"

template <int Mult>
void sweep(rotor::Dataset<Rating>& ratings, rotor::DistArray<std::int64_t, 1>& bu,
           std::vector<std::int64_t>& seen, std::int64_t& last) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    bu[r.user] = (bu[r.user] * Mult + r.item) % 1000003;
    seen[r.item] = (seen[r.item] * Mult + r.user + 1) % 1000003;
    last = r.user;
  }
}

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 1> bu({37});
  std::vector<std::int64_t> seen(29, 0);
  std::int64_t last = -1;
  for (int it = 0; it < 3; ++it) {
    sweep<3>(ratings, bu, seen, last);
    sweep<5>(ratings, bu, seen, last);
  }
  snd::Hash h;
  h << bu << seen << last;
  h.print();
  return 0;
}
