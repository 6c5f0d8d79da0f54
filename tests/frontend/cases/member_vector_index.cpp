// An index loop over a std::vector member of the loop's object (issue 16: funk-svd's
// `for (int j = 0; j < this->dense_users.size(); j++)`): this->ratings[j] is the record, with the
// keys and plan of a Dataset loop (rotation over user, item); the second loop names the member
// without `this`.
#include "common.h"

#include <cstddef>
#include <vector>

class Svd {
public:
  std::vector<Rating> ratings;
  std::vector<float> user_bias;
  std::vector<float> item_bias;

  void epoch(float lr) {
#pragma rotor parallel_for
    for (int j = 0; j < this->ratings.size(); j++) {
      const float err = this->ratings[j].value - user_bias[this->ratings[j].user] -
                        item_bias[this->ratings[j].item];
      user_bias[this->ratings[j].user] += lr * err;
      item_bias[this->ratings[j].item] += lr * err;
    }
  }
  void scale(float by) {
#pragma rotor parallel_for
    for (std::size_t j = 0; j < ratings.size(); ++j) {
      ratings[j].value *= by;
    }
  }
};
