// Shape: a helper with a visible body keeping a static local (hidden state across calls).
#include "soundness.h"

static std::int64_t next_ticket(int salt) {
  static std::int64_t ticket = 1;
  ticket = (ticket * 31 + salt) % 1000003;
  return ticket;
}

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 2> W({37, 2});
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      W(r.user, 0) = (W(r.user, 0) * 3 + next_ticket(r.item)) % 1000003;
      W(r.user, 1) += 1;
    }
  }
  snd::Hash h;
  h << W << next_ticket(0);
  h.print();
  return 0;
}
