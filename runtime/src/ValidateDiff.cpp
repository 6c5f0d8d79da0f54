// --rotor-validate's comparisons (ValidateDiff.h).

#include "ValidateDiff.h"

#include "rotor/distarray/DistArray.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <unordered_map>

namespace rotor::detail {
namespace {

const char* const in_both = " in the serial replay of its order";

std::string element_text(const char* p, ElementType element_type) {
  char buf[64];
  switch (element_type) {
  case ElementType::f32: {
    float v;
    std::memcpy(&v, p, sizeof v);
    std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
    return buf;
  }
  case ElementType::f64: {
    double v;
    std::memcpy(&v, p, sizeof v);
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
  }
  case ElementType::i32: {
    std::int32_t v;
    std::memcpy(&v, p, sizeof v);
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
    return buf;
  }
  case ElementType::i64: {
    std::int64_t v;
    std::memcpy(&v, p, sizeof v);
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
    return buf;
  }
  case ElementType::u32: {
    std::uint32_t v;
    std::memcpy(&v, p, sizeof v);
    std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(v));
    return buf;
  }
  case ElementType::u64: {
    std::uint64_t v;
    std::memcpy(&v, p, sizeof v);
    std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(v));
    return buf;
  }
  }
  unknown_element_type(element_type);
}

/// "W(17, 3)" for linear index `at` of an array of `shape` (row-major).
std::string element_name(const std::string& name, const std::vector<std::int64_t>& shape,
                         std::int64_t at) {
  std::vector<std::int64_t> index(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    index[d] = shape[d] > 0 ? at % shape[d] : 0;
    at = shape[d] > 0 ? at / shape[d] : 0;
  }
  std::ostringstream s;
  s << (name.empty() ? "array" : name) << "(";
  for (std::size_t d = 0; d < index.size(); ++d) {
    s << (d ? ", " : "") << index[d];
  }
  s << ")";
  return s.str();
}

std::string hex_bytes(const char* p, std::size_t n) {
  std::string out = "0x";
  char buf[4];
  for (std::size_t i = 0; i < n; ++i) {
    std::snprintf(buf, sizeof buf, "%02x", static_cast<unsigned>(static_cast<unsigned char>(p[i])));
    out += buf;
  }
  return out;
}

} // namespace

IdPositions::IdPositions(const std::vector<std::uint64_t>& ids) {
  std::uint64_t largest = 0;
  for (std::uint64_t id : ids) {
    largest = std::max(largest, id);
  }
  dense_ = largest < 2 * static_cast<std::uint64_t>(ids.size()) + 64;
  if (dense_) {
    table_.assign(static_cast<std::size_t>(largest) + 1, npos);
  } else {
    map_.reserve(ids.size());
  }
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (dense_) {
      std::size_t& at = table_[static_cast<std::size_t>(ids[i])];
      distinct_ = distinct_ && at == npos;
      at = at == npos ? i : at;
    } else {
      distinct_ = map_.emplace(ids[i], i).second && distinct_;
    }
  }
}

std::size_t IdPositions::find(std::uint64_t id) const {
  if (dense_) {
    return id < table_.size() ? table_[static_cast<std::size_t>(id)] : npos;
  }
  auto it = map_.find(id);
  return it == map_.end() ? npos : it->second;
}

std::string array_difference(const ArrayBinding& parallel, const char* replay) {
  std::int64_t n = 1;
  for (std::int64_t e : parallel.shape) {
    n *= e;
  }
  const std::size_t eb = parallel.elem_bytes;
  if (n <= 0 || std::memcmp(parallel.data, replay, static_cast<std::size_t>(n) * eb) == 0) {
    return "";
  }
  for (std::int64_t i = 0; i < n; ++i) {
    const char* a = parallel.data + static_cast<std::size_t>(i) * eb;
    const char* b = replay + static_cast<std::size_t>(i) * eb;
    if (std::memcmp(a, b, eb) != 0) {
      return element_name(parallel.name, parallel.shape, i) + " = " +
             element_text(a, parallel.element_type) + " in the parallel run, " +
             element_text(b, parallel.element_type) + in_both;
    }
  }
  return "";
}

std::string reduction_difference(const std::string& name, const ReductionOps& ops,
                                 const void* parallel, const void* replay) {
  if (std::memcmp(parallel, replay, ops.bytes) == 0) {
    return "";
  }
  const double a = ops.value(parallel), b = ops.value(replay);
  if (ops.tolerance > 0 &&
      std::fabs(a - b) <= ops.tolerance * std::max(std::fabs(a), std::fabs(b))) {
    return "";
  }
  char buf[160];
  std::snprintf(buf, sizeof buf, " = %.17g in the parallel run, %.17g", a, b);
  std::string tolerance;
  if (ops.tolerance > 0) {
    char t[64];
    std::snprintf(t, sizeof t, " (relative tolerance %g)", ops.tolerance);
    tolerance = t;
  }
  return "reduction " + (name.empty() ? std::string("?") : name) + buf + in_both + tolerance;
}

std::string record_difference(const RecordSet& parallel, const RecordSet& replay,
                              std::size_t record_bytes) {
  if (parallel.ids.size() != replay.ids.size()) {
    return "the dataset holds " + std::to_string(parallel.ids.size()) +
           " records after the parallel run, " + std::to_string(replay.ids.size()) + " before it";
  }
  const IdPositions where(parallel.ids);
  for (std::size_t k = 0; k < replay.ids.size(); ++k) {
    const std::size_t at = where.find(replay.ids[k]);
    if (at == IdPositions::npos) {
      return "record " + std::to_string(replay.ids[k]) + " is missing after the parallel run";
    }
    const char* a = parallel.bytes.data() + at * record_bytes;
    const char* b = replay.bytes.data() + k * record_bytes;
    for (std::size_t byte = 0; byte < record_bytes; ++byte) {
      if (a[byte] != b[byte]) {
        const std::size_t n = std::min<std::size_t>(8, record_bytes - byte);
        return "record " + std::to_string(replay.ids[k]) + ", bytes " + std::to_string(byte) +
               ".." + std::to_string(byte + n - 1) + " = " + hex_bytes(a + byte, n) +
               " in the parallel run, " + hex_bytes(b + byte, n) + in_both;
      }
    }
  }
  return "";
}

std::string order_difference(const std::vector<std::uint64_t>& order, const RecordSet& records) {
  if (order.size() != records.ids.size()) {
    return "the parallel run applied " + std::to_string(order.size()) + " records, the dataset " +
           "holds " + std::to_string(records.ids.size());
  }
  const IdPositions positions(records.ids);
  if (!positions.distinct()) {
    return "internal: the dataset's record ids repeat";
  }
  std::vector<char> seen(records.ids.size(), 0);
  for (std::uint64_t id : order) {
    const std::size_t at = positions.find(id);
    if (at == IdPositions::npos) {
      return "the parallel run applied record " + std::to_string(id) +
             ", which is not in the dataset";
    }
    if (seen[at]++) {
      return "the parallel run applied record " + std::to_string(id) + " twice";
    }
  }
  return "";
}

std::string point_order_difference(const std::vector<std::uint64_t>& order, std::uint64_t points) {
  if (order.size() != points) {
    return "the parallel run applied " + std::to_string(order.size()) + " points of the " +
           std::to_string(points) + " in the index space";
  }
  std::vector<char> seen(order.size(), 0);
  for (std::uint64_t p : order) {
    if (p >= points) {
      return "the parallel run applied point " + std::to_string(p) + ", outside the index space";
    }
    if (seen[p]++) {
      return "the parallel run applied point " + std::to_string(p) + " twice";
    }
  }
  return "";
}

} // namespace rotor::detail
