#pragma once
// The record of the two-file lazy-start test (lazy_loops.cpp, lazy_main.cpp).
#include <rotor/rotor.h>

#include <cstdint>

struct LazyItem {
  std::int32_t key;
  std::int32_t value;
};

std::int64_t lazy_train(rotor::Dataset<LazyItem>& data, rotor::DistArray<std::int64_t, 1>& A);
