// Non-template parts of Dataset's whole-dataset operations.
#include "rotor/distarray/Dataset.h"
#include "rotor/distarray/detail/Collective.h"
#include "rotor/distarray/detail/CounterRng.h"

#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>

namespace rotor::detail {
namespace {
__extension__ typedef unsigned __int128 U128;
} // namespace

std::vector<char> gather_all(const void* data, std::size_t bytes) {
  std::vector<std::size_t> offsets;
  return collective().allgatherv(data, bytes, offsets);
}

void check_non_negative(std::int64_t min_value, std::int64_t local_index, bool distributed,
                        const char* operation) {
  std::int64_t worst = -min_value; // > 0 when some value is negative
  if (distributed) {
    collective().allreduce_max(&worst, 1);
  }
  if (worst <= 0) {
    return;
  }
  const int rank = collective().rank();
  std::string where = local_index >= 0 ? "local record " + std::to_string(local_index) + " has " +
                                             std::to_string(min_value)
                                       : "a record on another rank has " + std::to_string(-worst);
  throw std::out_of_range("[rank " + std::to_string(rank) + "] rotor::Dataset::" + operation +
                          ": key fields must be >= 0, but " + where);
}

std::vector<std::uint32_t> expand_origin_codes(const std::vector<std::uint16_t>& codes,
                                               std::size_t count, bool distributed) {
  std::vector<char> gathered;
  const std::uint16_t* all = codes.data();
  std::size_t total = codes.size();
  std::uint64_t first = 0; // position of this rank's first record in the laid-out order
  if (distributed) {
    gathered = gather_all(codes.data(), codes.size() * sizeof(std::uint16_t));
    all = reinterpret_cast<const std::uint16_t*>(gathered.data());
    total = gathered.size() / sizeof(std::uint16_t);
    const std::uint64_t mine = count;
    const std::vector<char> counts = gather_all(&mine, sizeof mine);
    for (int r = 0; r < collective().rank(); ++r) {
      std::uint64_t v = 0;
      std::memcpy(&v, counts.data() + r * sizeof v, sizeof v);
      first += v;
    }
  }
  if (first + count > total) {
    throw std::logic_error("rotor: internal: origin codes do not cover the records");
  }
  // the laid-out order is the dataset's order stably grouped by code
  std::vector<std::uint64_t> next(65537, 0);
  for (std::size_t p = 0; p < total; ++p) {
    ++next[all[p] + 1u];
  }
  std::partial_sum(next.begin(), next.end(), next.begin());
  std::vector<std::uint32_t> origin(count);
  for (std::size_t p = 0; p < total; ++p) {
    const std::uint64_t at = next[all[p]]++;
    if (at >= first && at < first + count) {
      origin[at - first] = static_cast<std::uint32_t>(p);
    }
  }
  return origin;
}

std::vector<std::int64_t> random_permutation(std::int64_t n, std::uint64_t seed) {
  std::vector<std::int64_t> perm(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    perm[static_cast<std::size_t>(i)] = i;
  }
  // Fisher-Yates; step i draws from (seed, i) only. The 128-bit multiply-shift maps 64 random
  // bits to [0, i] without a division (bias below 2^-20 for n < 2^44).
  for (std::int64_t i = n - 1; i > 0; --i) {
    const std::uint64_t bits = counter_bits(seed, 0x52454d4150ULL, static_cast<std::uint64_t>(i));
    const auto span = static_cast<std::uint64_t>(i) + 1;
    const auto j = static_cast<std::uint64_t>((static_cast<U128>(bits) * span) >> 64);
    std::swap(perm[static_cast<std::size_t>(i)], perm[static_cast<std::size_t>(j)]);
  }
  return perm;
}

} // namespace rotor::detail
