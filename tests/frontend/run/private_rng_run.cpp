// private(rng) end to end through rotor-cc: every worker draws from its own re-seeded copy (all
// draws distinct: copies that shared a stream would repeat it), a scratch buffer is privatised,
// and the outside generator keeps its value from before the loop.
#include <rotor/rotor.h>

#include <cstdio>
#include <random>
#include <set>
#include <vector>

struct Draw {
  std::int32_t id;
  std::uint32_t value;
};

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  std::vector<Draw> records;
  for (int i = 0; i < 4000; ++i) {
    records.push_back({i, 0});
  }
  rotor::Dataset<Draw> draws(records);
  std::mt19937 rng(2024);
  const std::mt19937 before = rng;
  std::vector<double> p(4);
#pragma rotor parallel_for private(rng)
  for (Draw& d : draws) {
    for (int k = 0; k < static_cast<int>(p.size()); ++k) {
      p[k] = d.id * (k + 1.0);
    }
    d.value = static_cast<std::uint32_t>(rng()) ^ (static_cast<std::uint32_t>(p[3]) & 1u);
  }
  std::set<std::uint32_t> distinct;
  for (const Draw& d : draws) {
    distinct.insert(d.value);
  }
  std::printf("distinct=%zu outside_unchanged=%d\n", distinct.size(), rng == before ? 1 : 0);
  return 0;
}
