// Shape: the loop in a function template instance writes through a pointer of dependent type `T* table`.
#include "soundness.h"

template <class T>
void sweep(rotor::Dataset<Rating>& ratings, rotor::DistArray<std::int64_t, 1>& bu, T* table) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    bu[r.user] += 1;
    table[r.item] = static_cast<T>((table[r.item] * 3 + r.user + 1) % 65521);
  }
}

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 1> bu({37});
  std::vector<std::int32_t> narrow(29, 1);
  std::vector<std::int64_t> wide(29, 2);
  for (int it = 0; it < 3; ++it) {
    sweep(ratings, bu, narrow.data());
    sweep(ratings, bu, wide.data());
  }
  snd::Hash h;
  h << bu << narrow << wide;
  h.print();
  return 0;
}
