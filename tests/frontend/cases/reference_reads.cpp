#include "common.h"

#include <vector>

// Non-const references that only read: a row of a table of vectors, an element, a range-for
// over a vector (by value and by `auto&`). Each is a read, so the loop is one_d by user. The
// second loop writes through a row reference into a table other records read: serial.
void reference_reads(rotor::Dataset<Rating>& ratings, std::vector<std::vector<float>>& lists,
                     std::vector<float>& bias) {
  std::vector<float> out(100);
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    auto& row = lists[r.item];
    auto& b = bias[r.item];
    float s = b;
    for (auto& x : row) {
      s += x;
    }
    for (float x : bias) {
      s += x;
    }
    out[r.user] += s * r.value;
  }
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    auto& row = lists[r.user % 7];
    row[0] += lists[r.item][0];
  }
}
