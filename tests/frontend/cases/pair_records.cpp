// A loop over funk-svd's ratings, std::vector<std::pair<std::pair<int, int>, double>> (user,
// item), rating: the key fields are named by their path (first.first, first.second) and the
// plan rotates over them, as for a vector of Rating records.
#include "common.h"

#include <utility>
#include <vector>

using Entry = std::pair<std::pair<int, int>, double>;

void epoch(const std::vector<Entry>& ratings, std::vector<double>& user_bias,
           std::vector<double>& item_bias, double lr) {
#pragma rotor parallel_for
  for (const Entry& e : ratings) {
    const double err = e.second - user_bias[e.first.first] - item_bias[e.first.second];
    user_bias[e.first.first] += lr * err;
    item_bias[e.first.second] += lr * err;
  }
}
