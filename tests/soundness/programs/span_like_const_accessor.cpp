// Shape: a tiny span-like struct declared outside; its const operator[] hands out writable elements.
#include "soundness.h"

struct IntSpan {
  std::int64_t* p;
  std::size_t n;
  std::int64_t& operator[](std::size_t i) const { return p[i]; }
};

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 1> bu({37});
  std::vector<std::int64_t> store(29, 1);
  const IntSpan view{store.data(), store.size()};
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      bu[r.user] += 1;
      view[r.item] = (view[r.item] * 3 + r.user) % 1000003;
    }
  }
  snd::Hash h;
  h << bu << store;
  h.print();
  return 0;
}
