// private(random, rand) end to end through rotor-cc (rotor/runtime/Private.h, LibcPrivate): the
// calls in the body and in a helper draw from per-worker generators that follow the documented
// seed sequence, the helper called outside the loop still draws from libc, and libc's generator
// advances by exactly one draw per loop execution. Prints `checksum=` (a + reduction over the
// draws, the same in every run: the np 2 test runs it twice and compares).
#include <rotor/rotor.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>
#include <vector>

struct Draw {
  std::int32_t id;
  std::uint32_t value;
  std::uint32_t other;
};

static long jitter() {
  return random();
}

/// The stream of worker slot `slot` on rank 0 for a loop that drew `d` from libc (Private.h):
/// glibc's algorithm, its 31 words from std::seed_seq{lo, 0, 0, slot}, lo being the first draw
/// of LibcStream(d) (what glibc's random() draws first after srandom(d)).
static rotor::codegen::LibcStream documented_stream(std::uint32_t d, int slot) {
  rotor::codegen::LibcStream base(d);
  std::seed_seq seq{base(), 0u, 0u, static_cast<std::uint32_t>(slot)};
  rotor::codegen::LibcStream stream;
  stream.seed(seq);
  return stream;
}

/// True when `drawn` is exactly what some workers (slots 0..63) drew from their documented
/// streams, each worker its stream's first values in order.
static bool from_documented_streams(std::uint32_t d, std::multiset<std::uint32_t> drawn,
                                    bool rand_range) {
  for (int slot = 0; slot < 64 && !drawn.empty(); ++slot) {
    rotor::codegen::LibcStream g = documented_stream(d, slot);
    while (true) {
      std::uint32_t v = g();
      if (rand_range) {
        v %= static_cast<std::uint32_t>(RAND_MAX) + 1u;
      }
      const auto it = drawn.find(v);
      if (it == drawn.end()) {
        break;
      }
      drawn.erase(it);
    }
  }
  return drawn.empty();
}

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  // glibc's rand() draws from random()'s generator: the loop starts private(random) first (one
  // draw, v2) and private(rand) second (v3), in the clause's order.
  srandom(7);
  const long v1 = random(), v2 = random(), v3 = random(), v4 = random();
  srandom(7);
  std::vector<Draw> records;
  for (int i = 0; i < 3000; ++i) {
    records.push_back({i, 0, 0});
  }
  rotor::Dataset<Draw> draws(records);
  const long before = jitter(); // outside any loop: libc's first draw
  std::int64_t checksum = 0;
#pragma rotor parallel_for private(random, rand)
  for (Draw& d : draws) {
    d.value = static_cast<std::uint32_t>(jitter());
    d.other = static_cast<std::uint32_t>(std::rand());
    checksum += static_cast<std::int64_t>(d.value % 1000003) * (d.id % 7 + 1);
  }
  const long after = random();
  if (session.ranks() == 1) {
    std::multiset<std::uint32_t> values, others;
    for (const Draw& d : draws) {
      values.insert(d.value);
      others.insert(d.other);
    }
    std::printf("before_ok=%d after_ok=%d streams_ok=%d rand_streams_ok=%d\n", before == v1,
                after == v4, from_documented_streams(static_cast<std::uint32_t>(v2), values, false),
                from_documented_streams(static_cast<std::uint32_t>(v3), others, true));
  }
  std::printf("checksum=%lld\n", static_cast<long long>(checksum));
  return 0;
}
