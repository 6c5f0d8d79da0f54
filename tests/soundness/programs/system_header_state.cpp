// Shape: functions from system headers with state: `operator<<` on an outside std::ostringstream.
#include "soundness.h"

#include <sstream>

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 1> bu({37});
  std::ostringstream trace;
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      bu[r.user] += r.item;
      trace << r.user << ':' << r.item << ' ';
    }
  }
  snd::Hash h;
  h << bu << trace.str();
  h.print();
  return 0;
}
