// Shape: a call through a std::function declared outside, whose target writes a captured vector.
#include "soundness.h"

#include <functional>

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 1> bu({37});
  std::vector<std::int64_t> log(29, 0);
  std::function<std::int64_t(int, int)> observe = [&log](int item, int user) {
    log[item] = (log[item] * 3 + user + 1) % 1000003;
    return log[item];
  };
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      bu[r.user] += observe(r.item, r.user) % 7;
    }
  }
  snd::Hash h;
  h << bu << log;
  h.print();
  return 0;
}
