#include "Box.h"

#include <algorithm>
#include <cstring>

namespace rotor::detail {

Box intersect(const Box& a, const Box& b) {
  Box r = a;
  for (std::size_t d = 0; d < a.lo.size(); ++d) {
    r.lo[d] = std::max(a.lo[d], b.lo[d]);
    r.hi[d] = std::min(a.hi[d], b.hi[d]);
  }
  return r;
}

bool intersects(const Box& a, const Box& b) {
  for (std::size_t d = 0; d < a.lo.size(); ++d) {
    if (std::max(a.lo[d], b.lo[d]) >= std::min(a.hi[d], b.hi[d])) {
      return false;
    }
  }
  return !a.lo.empty();
}

void subtract(const Box& a, const Box& b, Region& out) {
  if (a.empty()) {
    return;
  }
  if (!intersects(a, b)) {
    out.push_back(a);
    return;
  }
  Box rest = a;
  for (std::size_t d = 0; d < a.lo.size(); ++d) {
    if (rest.lo[d] < b.lo[d]) {
      Box below = rest;
      below.hi[d] = b.lo[d];
      out.push_back(below);
      rest.lo[d] = b.lo[d];
    }
    if (rest.hi[d] > b.hi[d]) {
      Box above = rest;
      above.lo[d] = b.hi[d];
      out.push_back(above);
      rest.hi[d] = b.hi[d];
    }
  }
}

Region subtract(const Region& region, const Box& b) {
  Region out;
  for (const Box& a : region) {
    subtract(a, b, out);
  }
  return out;
}

Region intersect(const Region& region, const Box& b) {
  Region out;
  for (const Box& a : region) {
    Box i = intersect(a, b);
    if (!i.empty()) {
      out.push_back(i);
    }
  }
  return out;
}

std::int64_t volume(const Region& region) {
  std::int64_t v = 0;
  for (const Box& b : region) {
    v += b.volume();
  }
  return v;
}

namespace {
template <bool Pack>
std::size_t copy_box(char* array, const std::vector<std::int64_t>& shape, std::size_t elem,
                     const Box& box, char* buffer) {
  if (box.empty()) {
    return 0;
  }
  const std::size_t n = shape.size();
  std::vector<std::int64_t> stride(n, 1);
  for (std::size_t d = n - 1; d > 0; --d) {
    stride[d - 1] = stride[d] * shape[d];
  }
  const std::size_t run = static_cast<std::size_t>(box.hi[n - 1] - box.lo[n - 1]) * elem;
  std::vector<std::int64_t> idx(box.lo.begin(), box.lo.end());
  std::size_t done = 0;
  while (true) {
    std::int64_t off = 0;
    for (std::size_t d = 0; d < n; ++d) {
      off += idx[d] * stride[d];
    }
    char* at = array + static_cast<std::size_t>(off) * elem;
    if (Pack) {
      std::memcpy(buffer + done, at, run);
    } else {
      std::memcpy(at, buffer + done, run);
    }
    done += run;
    // next row of the box (all dims but the last)
    std::size_t d = n - 1;
    while (d > 0) {
      --d;
      if (++idx[d] < box.hi[d]) {
        break;
      }
      idx[d] = box.lo[d];
      if (d == 0) {
        return done;
      }
    }
    if (n == 1) {
      return done;
    }
  }
}
} // namespace

std::size_t pack_box(const char* array, const std::vector<std::int64_t>& shape, std::size_t elem,
                     const Box& box, char* out) {
  return copy_box<true>(const_cast<char*>(array), shape, elem, box, out);
}

std::size_t unpack_box(char* array, const std::vector<std::int64_t>& shape, std::size_t elem,
                       const Box& box, const char* in) {
  return copy_box<false>(array, shape, elem, box, const_cast<char*>(in));
}

} // namespace rotor::detail
