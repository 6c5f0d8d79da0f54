#pragma once
/// \file
/// Half-open boxes of array indices ([lo, hi) per dimension) and regions (lists of disjoint
/// boxes): the footprints that decide which array elements move between ranks.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace rotor::detail {

struct Box {
  std::vector<std::int64_t> lo, hi;
  bool empty() const {
    for (std::size_t d = 0; d < lo.size(); ++d) {
      if (lo[d] >= hi[d]) {
        return true;
      }
    }
    return lo.empty();
  }
  std::int64_t volume() const {
    if (empty()) {
      return 0;
    }
    std::int64_t v = 1;
    for (std::size_t d = 0; d < lo.size(); ++d) {
      v *= hi[d] - lo[d];
    }
    return v;
  }
};
using Region = std::vector<Box>;

Box intersect(const Box& a, const Box& b);
bool intersects(const Box& a, const Box& b);
/// a \ b as disjoint boxes appended to `out`.
void subtract(const Box& a, const Box& b, Region& out);
Region subtract(const Region& region, const Box& b);
Region intersect(const Region& region, const Box& b);
std::int64_t volume(const Region& region);

/// Copies the elements of `box` of a row-major array (`shape`, `elem` bytes each) to / from a
/// contiguous buffer, row-major within the box. Returns the bytes copied.
std::size_t pack_box(const char* array, const std::vector<std::int64_t>& shape, std::size_t elem,
                     const Box& box, char* out);
std::size_t unpack_box(char* array, const std::vector<std::int64_t>& shape, std::size_t elem,
                       const Box& box, const char* in);

} // namespace rotor::detail
