#include "rotor/distarray/DistArray.h"
#include "rotor/distarray/MemoryLimit.h"
#include "rotor/distarray/detail/CounterRng.h"

#include <cmath>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <string>

namespace rotor::detail {

void* aligned_alloc_bytes(std::size_t bytes) {
  const std::size_t rounded = (bytes + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, rounded == 0 ? 64 : rounded);
  if (p == nullptr) {
    throw std::bad_alloc();
  }
  return p;
}

void aligned_free_bytes(void* p) noexcept {
  std::free(p);
}

void unknown_element_type(ElementType type) {
  throw std::logic_error("rotor: unknown element type " + std::to_string(static_cast<int>(type)));
}

void check_array_allocation(ElementType type, int rank, const std::int64_t* shape,
                            std::size_t element_bytes, const char* name) {
  double bytes = static_cast<double>(element_bytes);
  for (int d = 0; d < rank; ++d) {
    bytes *= static_cast<double>(shape[d]);
  }
  if (bytes < static_cast<double>(1u << 20)) {
    return; // small arrays (and copies of them) cost no check
  }
  static const char* const names[] = {"float",   "double",   "int32_t",
                                      "int64_t", "uint32_t", "uint64_t"};
  std::string what =
      std::string("DistArray<") + names[static_cast<int>(type)] + ", " + std::to_string(rank) + ">";
  if (name && *name) {
    what += std::string(" ") + name;
  }
  check_allocation(what, shape, rank, element_bytes);
}

namespace {
template <class T, class Gen> void fill_typed(void* data, std::int64_t count, Gen&& gen) {
  T* out = static_cast<T*>(data);
  for (std::int64_t i = 0; i < count; ++i) {
    out[i] = static_cast<T>(gen(static_cast<std::uint64_t>(i)));
  }
}

template <class Gen> void fill_any(ElementType type, void* data, std::int64_t count, Gen&& gen) {
  switch (type) {
  case ElementType::f32:
    fill_typed<float>(data, count, gen);
    return;
  case ElementType::f64:
    fill_typed<double>(data, count, gen);
    return;
  case ElementType::i32:
    fill_typed<std::int32_t>(data, count, gen);
    return;
  case ElementType::i64:
    fill_typed<std::int64_t>(data, count, gen);
    return;
  case ElementType::u32:
    fill_typed<std::uint32_t>(data, count, gen);
    return;
  case ElementType::u64:
    fill_typed<std::uint64_t>(data, count, gen);
    return;
  }
  unknown_element_type(type);
}
} // namespace

void fill_normal_raw(ElementType type, void* data, std::int64_t count, double mean, double stddev,
                     std::uint64_t seed) {
  fill_any(type, data, count,
           [&](std::uint64_t i) { return mean + stddev * counter_normal(seed, i); });
}

void fill_uniform_raw(ElementType type, void* data, std::int64_t count, double lo, double hi,
                      std::uint64_t seed) {
  const bool integral = type != ElementType::f32 && type != ElementType::f64;
  fill_any(type, data, count, [&](std::uint64_t i) {
    const double u = counter_uniform(seed, 0, i);
    double v = lo + (hi - lo) * u;
    if (integral) {
      v = std::floor(v);
    }
    // Rounding (to double, or later to float) may reach hi; keep the interval half-open.
    if (v >= hi && hi > lo) {
      v = integral ? hi - 1 : std::nextafter(hi, lo);
      if (type == ElementType::f32) {
        v = static_cast<double>(std::nextafter(static_cast<float>(hi), static_cast<float>(lo)));
      }
    }
    return v;
  });
}

} // namespace rotor::detail
