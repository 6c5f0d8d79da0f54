// The loop of a two-file program whose main (lazy_main.cpp) has no pragma, so rotor-cc inserts
// no MainSession: the first loop starts the runtime from the ROTOR_* variables.
#include "lazy_record.h"

std::int64_t lazy_train(rotor::Dataset<LazyItem>& data, rotor::DistArray<std::int64_t, 1>& A) {
  std::int64_t total = 0;
#pragma rotor parallel_for
  for (const LazyItem& r : data) {
    A[r.key] += r.value;
    total += r.value;
  }
  return total;
}
