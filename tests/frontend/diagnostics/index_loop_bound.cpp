#include "../cases/common.h"

#include <cstddef>
#include <vector>

void grows(std::vector<Rating>& ratings, rotor::DistArray<float, 1>& bu) {
#pragma rotor parallel_for
  for (std::size_t i = 0; i < ratings.size(); ++i) {
    bu[ratings[i].user] += ratings[i].value;
    if (ratings[i].value > 4.5f) {
      ratings.push_back(ratings[i]); // the bound changes while the loop runs
    }
  }
}
