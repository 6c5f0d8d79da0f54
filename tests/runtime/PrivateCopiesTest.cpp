// Per-worker copies (rotor/runtime/Private.h): private(rng) gives each worker slot its own,
// reproducible stream from the documented seed sequence, leaves the outside generator alone, and
// scratch buffers give every worker its own buffer inside real loops.
#include "LoopTestUtil.h"

#include "rotor/runtime/Private.h"

#include <random>
#include <set>

namespace rotor::test {
namespace {

using codegen::Kind;
using codegen::Role;
using codegen::WorkerCopies;

std::vector<std::uint32_t> draws(std::mt19937& g, int n) {
  std::vector<std::uint32_t> out;
  for (int i = 0; i < n; ++i) {
    out.push_back(static_cast<std::uint32_t>(g()));
  }
  return out;
}

TEST(PrivateCopies, GeneratorsDifferPerWorkerAndAreReproducible) {
  std::mt19937 outside(1234);
  const std::mt19937 before = outside;
  WorkerCopies<std::mt19937> a(outside, true);
  std::set<std::vector<std::uint32_t>> streams;
  for (int slot = 0; slot < 4; ++slot) {
    streams.insert(draws(a.slot_copy(slot), 8));
  }
  EXPECT_EQ(streams.size(), 4u) << "two worker slots share a stream";
  EXPECT_TRUE(outside == before) << "the outside generator was advanced";

  // The same outside state gives the same per-slot streams (in any order of first use).
  std::mt19937 again(1234);
  WorkerCopies<std::mt19937> b(again, true);
  for (int slot = 3; slot >= 0; --slot) {
    std::mt19937 fresh(1234);
    WorkerCopies<std::mt19937> c(fresh, true);
    EXPECT_EQ(draws(b.slot_copy(slot), 8), draws(c.slot_copy(slot), 8)) << "slot " << slot;
  }

  // The documented sequence: std::seed_seq{lo, hi, rank, slot} of a copy's first output.
  std::mt19937 probe(1234);
  const std::uint64_t first = probe();
  const int rank = detail::collective().rank();
  std::seed_seq seq{static_cast<std::uint32_t>(first), static_cast<std::uint32_t>(first >> 32),
                    static_cast<std::uint32_t>(rank), 2u};
  std::mt19937 expected(seq);
  std::mt19937 documented(1234);
  WorkerCopies<std::mt19937> d(documented, true);
  EXPECT_EQ(draws(d.slot_copy(2), 8), draws(expected, 8));
}

// private(random)'s per-worker generator is glibc's own algorithm: seeded with s it draws what
// random() draws after srandom(s) (seed 0 as 1, as srandom), and each worker slot's stream
// differs from the others'.
TEST(PrivateCopies, LibcStreamIsGlibcRandom) {
  for (const std::uint32_t s : {0u, 1u, 7u, 12345u, 0x80000000u, 0xffffffffu}) {
    srandom(s);
    codegen::LibcStream stream(s);
    int differing = 0;
    for (int i = 0; i < 20000; ++i) {
      differing += static_cast<long>(stream()) != random() ? 1 : 0;
    }
    EXPECT_EQ(differing, 0) << "seed " << s;
  }
  codegen::LibcStream outside(42);
  WorkerCopies<codegen::LibcStream> copies(outside, true);
  std::set<std::vector<std::uint32_t>> streams;
  for (int slot = 0; slot < 4; ++slot) {
    std::vector<std::uint32_t> first;
    for (int i = 0; i < 8; ++i) {
      const std::uint32_t v = copies.slot_copy(slot)();
      EXPECT_LE(v, 0x7fffffffu);
      first.push_back(v);
    }
    streams.insert(first);
  }
  EXPECT_EQ(streams.size(), 4u) << "two worker slots share a stream";
}

TEST(PrivateCopies, WithoutReseedEachCopyStartsFromTheOutsideValue) {
  std::vector<double> outside{1.0, 2.0, 3.0};
  WorkerCopies<std::vector<double>> copies(outside, false);
  copies.slot_copy(1)[0] = 9.0;
  EXPECT_EQ(copies.slot_copy(0), (std::vector<double>{1.0, 2.0, 3.0}));
  EXPECT_EQ(copies.slot_copy(1), (std::vector<double>{9.0, 2.0, 3.0}));
  EXPECT_EQ(outside, (std::vector<double>{1.0, 2.0, 3.0}));
  double array[3] = {4.0, 5.0, 6.0};
  WorkerCopies<double[3]> array_copies(array, false);
  EXPECT_EQ(array_copies.slot_copy(5)[2], 6.0);
  EXPECT_NE(&array_copies.slot_copy(5)[0], &array[0]);
}

// A scratch buffer every record fills whole before reading it, as rotor-cc rewrites an LDA
// sampler's probability vector: equal to the serial loop while workers run concurrently, and the
// outside buffer is left as it was.
TEST(PrivateCopies, ScratchBufferInAParallelLoopEqualsSerial) {
  constexpr int k = 16;
  auto records = make_ratings(4000, 50, 40, 9);
  Dataset<Rating> ratings(records);
  DistArray<double, 1> W({50});
  std::vector<double> p(k);
  WorkerCopies<std::vector<double>> rotor_private_p(p, false);
  auto s = spec(Kind::one_d, {0}, {array("W", Role::partitioned, 0, true, {{0, 0, 0}})});
  codegen::run_loop(s, ratings, codegen::keys(&Rating::user, &Rating::item), std::tie(W),
                    std::tie(), [&](const Rating& r, auto& W) {
                      auto& p = rotor_private_p.local();
                      for (int j = 0; j < k; ++j) {
                        p[j] = r.value * (j + 1) + r.item;
                      }
                      for (int j = 1; j < k; ++j) {
                        p[j] += p[j - 1];
                      }
                      W[r.user] += p[k - 1];
                    });
  std::vector<double> serial(50, 0.0);
  for (const Rating& r : records) {
    double acc = 0;
    for (int j = 0; j < k; ++j) {
      acc += r.value * (j + 1) + r.item;
    }
    serial[r.user] += acc;
  }
  for (int u = 0; u < 50; ++u) {
    EXPECT_NEAR(W[u], serial[u], 1e-9 * std::abs(serial[u]) + 1e-9) << "user " << u;
  }
  EXPECT_EQ(p, std::vector<double>(k, 0.0)) << "the outside buffer was written";
}

} // namespace
} // namespace rotor::test
