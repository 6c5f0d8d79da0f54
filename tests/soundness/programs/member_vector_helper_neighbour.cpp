// Must stay serial: an index loop over a member vector (`j < ratings.size()`) whose body calls a
// member function that reads the next record, which another iteration writes (`ratings[j + 1]`
// in `next_value`). Any parallel order changes the values; the loop runs in index order.
#include "soundness.h"

class Trainer {
public:
  std::vector<Rating> ratings = snd::ratings();
  std::vector<std::int64_t> per_user = std::vector<std::int64_t>(37);

  float next_value(std::size_t j) const {
    return j + 1 < ratings.size() ? ratings[j + 1].value : 0.0f;
  }
  void epoch() {
#pragma rotor parallel_for
    for (std::size_t j = 0; j < this->ratings.size(); ++j) {
      const float next = next_value(j);
      ratings[j].value =
          static_cast<float>((static_cast<int>(ratings[j].value + next) * 7) % 5 + 1);
      per_user[ratings[j].user] += static_cast<std::int64_t>(ratings[j].value);
    }
  }
};

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  Trainer t;
  t.epoch();
  t.epoch();
  snd::Hash h;
  h << t.ratings << t.per_user;
  h.print();
  return 0;
}
