// Shape: writes through `std::reference_wrapper::get()` on a wrapper declared outside the loop.
#include "soundness.h"

#include <functional>

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 1> bu({37});
  std::vector<std::int64_t> store(29, 1);
  const std::reference_wrapper<std::vector<std::int64_t>> ref = std::ref(store);
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      bu[r.user] += 1;
      ref.get()[r.item] = (ref.get()[r.item] * 3 + r.user) % 1000003;
    }
  }
  snd::Hash h;
  h << bu << store;
  h.print();
  return 0;
}
