// Shape: a virtual call in the body; the derived override writes the object's state.
#include "soundness.h"

struct Observer {
  virtual ~Observer() = default;
  virtual std::int64_t see(int user, int item) { return user + item; }
};
struct Recorder : Observer {
  std::int64_t state = 1;
  std::int64_t see(int user, int item) override {
    state = (state * 31 + user * 3 + item) % 1000003;
    return state % 11;
  }
};

static void epoch(rotor::Dataset<Rating>& ratings, rotor::DistArray<std::int64_t, 1>& bu, Observer& obs) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    bu[r.user] = (bu[r.user] * 3 + obs.see(r.user, r.item)) % 1000003;
  }
}

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 1> bu({37});
  Recorder rec;
  for (int it = 0; it < 3; ++it) {
    epoch(ratings, bu, rec);
  }
  snd::Hash h;
  h << bu << rec.state;
  h.print();
  return 0;
}
