// Shape: buffered(...) members used in helpers that Rotor must not clone into the loop (docs/
// design/helper-clones.md): (1) the helper names the std::vector by `this->totals`, (2) the
// T* member is written in a helper of the helper, (3) the function around the loop has a local
// `k_slots` that the helper's member `k_slots` would become in a clone. Each loop must stay
// serial, so the result equals the serial program's in the recorded order.
#include "soundness.h"

constexpr std::int64_t P = 1000003;

class Counts {
public:
  std::vector<std::int64_t> totals = std::vector<std::int64_t>(37, 1);
  std::int64_t* rows = nullptr;
  int k_slots = 29;

  void sweep(rotor::Dataset<Rating>& ratings) {
#pragma rotor parallel_for buffered(totals)
    for (const Rating& r : ratings) {
      totals[r.user] = (totals[r.user] * 5 + r.item) % P;
      explicit_this(r.item);
    }
#pragma rotor parallel_for buffered(rows)
    for (const Rating& r : ratings) {
      rows[r.user] = (rows[r.user] * 7 + r.item) % P;
      outer(r.item);
    }
    const int k_slots = 37;
#pragma rotor parallel_for buffered(totals)
    for (const Rating& r : ratings) {
      totals[r.user % k_slots] = (totals[r.user % k_slots] * 11 + r.item) % P;
      slot(r.item);
    }
  }

private:
  void explicit_this(int item) {
    this->totals[item] = (this->totals[item] * 3 + item) % P;
  }
  void inner(int item) {
    rows[item] = (rows[item] * 13 + item) % P;
  }
  void outer(int item) {
    inner(item);
  }
  void slot(int item) {
    totals[item % k_slots] = (totals[item % k_slots] * 17 + item) % P;
  }
};

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  std::vector<std::int64_t> rows(37, 1);
  Counts c;
  c.rows = rows.data();
  for (int it = 0; it < 2; ++it) {
    c.sweep(ratings);
  }
  snd::Hash h;
  h << c.totals << rows;
  h.records(ratings);
  h.print();
  return 0;
}
