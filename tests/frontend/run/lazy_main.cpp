// main of the two-file lazy-start test (see lazy_loops.cpp): no Rotor runtime call here; the
// first loop starts the runtime. The line printed before it must still appear once at np 2 (a
// program built by rotor-cc keeps non-root ranks quiet from its start).
#include "lazy_record.h"

#include <cstdio>
#include <vector>

int main() {
  std::printf("start\n");
  std::vector<LazyItem> items;
  for (std::int32_t i = 0; i < 3000; ++i) {
    items.push_back({(i * 37) % 17, i % 101});
  }
  rotor::Dataset<LazyItem> data(items);
  rotor::DistArray<std::int64_t, 1> A({17});
  std::int64_t total = 0;
  for (int epoch = 0; epoch < 2; ++epoch) {
    total += lazy_train(data, A);
  }
  std::uint64_t check = 0; // unsigned: the hash wraps (UBSan)
  for (std::int64_t i = 0; i < 17; ++i) {
    check = check * 31 + static_cast<std::uint64_t>(A[i]);
  }
  std::printf("total=%lld check=%llu\n", static_cast<long long>(total),
              static_cast<unsigned long long>(check));
  return 0;
}
