// Shape: user code in a namespace named `rotor` (rotor::user::bump writes a global table).
#include "soundness.h"

namespace rotor {
namespace user {
std::int64_t table[29];
inline std::int64_t bump(int item, int user) {
  table[item] = (table[item] * 3 + user + 1) % 1000003;
  return table[item];
}
} // namespace user
} // namespace rotor

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 1> bu({37});
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      bu[r.user] += rotor::user::bump(r.item, r.user) % 5;
    }
  }
  snd::Hash h;
  h << bu << rotor::user::table;
  h.print();
  return 0;
}
