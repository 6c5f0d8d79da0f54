// Good shape: index loops over a std::vector member of the loop's object, bounded by
// `this->ratings.size()` and by `ratings.size()` (implicit `this`), using `this->ratings[j]` /
// `ratings[j]` as the record; they write a non-key field of each record and per-user / per-item
// counts (row vectors of the same object), so they must stay parallel (one_d, rotation). The
// serial replay cannot reorder a plain vector, so the updates commute (integer counts, a value
// computed from the record alone): a lost count or value still changes the hash.
#include "soundness.h"

class Trainer {
public:
  std::vector<Rating> ratings = snd::ratings();
  std::vector<std::int64_t> per_user = std::vector<std::int64_t>(37);
  std::vector<std::int64_t> per_item = std::vector<std::int64_t>(29);

  void by_user(int epoch) {
#pragma rotor parallel_for
    for (int j = 0; j < this->ratings.size(); j++) {
      per_user[this->ratings[j].user] += static_cast<std::int64_t>(this->ratings[j].value);
      this->ratings[j].value = static_cast<float>((this->ratings[j].user + epoch) % 5 + 1);
    }
  }
  void by_user_and_item() {
#pragma rotor parallel_for
    for (std::size_t j = 0; j < ratings.size(); ++j) {
      per_user[ratings[j].user] += ratings[j].item;
      per_item[ratings[j].item] += static_cast<std::int64_t>(ratings[j].value) * 3;
    }
  }
};

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  Trainer t;
  for (int epoch = 0; epoch < 2; ++epoch) {
    t.by_user(epoch);
    t.by_user_and_item();
  }
  snd::Hash h;
  h << t.ratings << t.per_user << t.per_item;
  h.print();
  return 0;
}
