#include "split_program.h"

void split_add_to_row(rotor::DistArray<std::int64_t, 2>& table, std::int32_t row,
                      std::int64_t amount) {
  for (std::int64_t k = 0; k < table.extent(1); ++k) {
    table(row, k) += amount * (k + 1);
  }
}

std::int64_t split_weight(const Rating& r) {
  return r.value * 3 + (r.user + r.item) % 5;
}
