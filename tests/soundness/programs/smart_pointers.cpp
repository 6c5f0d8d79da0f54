// Shape: writes through a const std::unique_ptr and a std::shared_ptr to data outside the loop.
#include "soundness.h"

#include <array>
#include <memory>

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 1> bu({37});
  const auto owned = std::make_unique<std::array<std::int64_t, 29>>();
  const auto shared = std::make_shared<std::int64_t>(1);
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      bu[r.user] += 1;
      (*owned)[r.item] = ((*owned)[r.item] * 3 + r.user + 1) % 1000003;
      *shared = (*shared * 7 + r.item) % 1000003;
    }
  }
  snd::Hash h;
  h << bu << *owned << *shared;
  h.print();
  return 0;
}
