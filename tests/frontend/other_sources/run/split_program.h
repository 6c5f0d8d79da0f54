// A program split over two sources, built file by file: split_program_main.cpp holds the loop,
// split_program_helpers.cpp the bodies of the helpers it calls (rotor-cc reads them from there).
#pragma once
#include <rotor/rotor.h>

#include <cstdint>

struct Rating {
  std::int32_t user;
  std::int32_t item;
  std::int32_t value;
};

/// table(row, k) += amount * (k + 1) for every column k.
void split_add_to_row(rotor::DistArray<std::int64_t, 2>& table, std::int32_t row,
                      std::int64_t amount);

/// A weight computed from the record alone.
std::int64_t split_weight(const Rating& r);
