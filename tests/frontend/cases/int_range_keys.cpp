// An integer-range loop (issue 16: `W[user_of[m]]`): the iterations are m in [0, M), the keys m
// and the values of read-only index vectors at m, read by the inspector before the loop; the
// plan rotates over user_of[m] and item_of[m], as for a loop over Rating records (value_of holds
// doubles: a read float vector could be the same container as a written one).
#include "common.h"

#include <vector>

void epoch(const std::vector<int>& user_of, const std::vector<int>& item_of,
           const std::vector<double>& value_of, std::vector<float>& user_bias,
           std::vector<float>& item_bias, int M, float lr) {
#pragma rotor parallel_for
  for (int m = 0; m < M; ++m) {
    const float err = static_cast<float>(value_of[m]) - user_bias[user_of[m]] - item_bias[item_of[m]];
    user_bias[user_of[m]] += lr * err;
    item_bias[item_of[m]] += lr * err;
  }
}
