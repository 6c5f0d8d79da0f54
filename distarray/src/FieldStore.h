#pragma once
// Parsing one text value into one record field, with the checks every loader applies
// (private to distarray/src).

#include "TextShard.h"
#include "rotor/distarray/detail/LoaderCore.h"

#include <cstring>
#include <limits>

namespace rotor::detail {

inline bool is_integer_kind(FieldKind k) {
  return k != FieldKind::f32 && k != FieldKind::f64;
}

inline const char* kind_name(FieldKind k) {
  switch (k) {
  case FieldKind::i8:
    return "8-bit integer";
  case FieldKind::i16:
    return "16-bit integer";
  case FieldKind::i32:
    return "32-bit integer";
  case FieldKind::i64:
    return "64-bit integer";
  case FieldKind::u8:
    return "unsigned 8-bit integer";
  case FieldKind::u16:
    return "unsigned 16-bit integer";
  case FieldKind::u32:
    return "unsigned 32-bit integer";
  case FieldKind::u64:
    return "unsigned 64-bit integer";
  case FieldKind::f32:
    return "float";
  case FieldKind::f64:
    return "double";
  }
  return "?";
}

template <class T> inline void put(char* record, std::uint32_t offset, T v) {
  std::memcpy(record + offset, &v, sizeof v);
}

/// Stores integer `v` into field `f`; false (with `why`) if it does not fit.
/// The integer field `f` of `record` (a u64 above INT64_MAX comes out negative; 0 for a field
/// that is no integer).
inline std::int64_t load_integer(const char* record, const FieldDesc& f) {
  auto get = [&](auto v) {
    std::memcpy(&v, record + f.offset, sizeof v);
    return static_cast<std::int64_t>(v);
  };
  switch (f.kind) {
  case FieldKind::i8:
    return get(std::int8_t{});
  case FieldKind::i16:
    return get(std::int16_t{});
  case FieldKind::i32:
    return get(std::int32_t{});
  case FieldKind::i64:
    return get(std::int64_t{});
  case FieldKind::u8:
    return get(std::uint8_t{});
  case FieldKind::u16:
    return get(std::uint16_t{});
  case FieldKind::u32:
    return get(std::uint32_t{});
  case FieldKind::u64:
    return get(std::uint64_t{});
  default:
    return 0;
  }
}

inline bool store_integer(char* record, const FieldDesc& f, std::int64_t v, std::string& why) {
  auto fits = [&](auto lo, auto hi) {
    return v >= static_cast<std::int64_t>(lo) && v <= static_cast<std::int64_t>(hi);
  };
  bool ok = true;
  switch (f.kind) {
  case FieldKind::i8:
    ok = fits(INT8_MIN, INT8_MAX);
    if (ok)
      put(record, f.offset, static_cast<std::int8_t>(v));
    break;
  case FieldKind::i16:
    ok = fits(INT16_MIN, INT16_MAX);
    if (ok)
      put(record, f.offset, static_cast<std::int16_t>(v));
    break;
  case FieldKind::i32:
    ok = fits(INT32_MIN, INT32_MAX);
    if (ok)
      put(record, f.offset, static_cast<std::int32_t>(v));
    break;
  case FieldKind::i64:
    put(record, f.offset, v);
    break;
  case FieldKind::u8:
    ok = fits(0, UINT8_MAX);
    if (ok)
      put(record, f.offset, static_cast<std::uint8_t>(v));
    break;
  case FieldKind::u16:
    ok = fits(0, UINT16_MAX);
    if (ok)
      put(record, f.offset, static_cast<std::uint16_t>(v));
    break;
  case FieldKind::u32:
    ok = fits(0, UINT32_MAX);
    if (ok)
      put(record, f.offset, static_cast<std::uint32_t>(v));
    break;
  case FieldKind::u64:
    ok = v >= 0;
    if (ok)
      put(record, f.offset, static_cast<std::uint64_t>(v));
    break;
  case FieldKind::f32:
    put(record, f.offset, static_cast<float>(v));
    break;
  case FieldKind::f64:
    put(record, f.offset, static_cast<double>(v));
    break;
  }
  if (!ok) {
    why = "value " + std::to_string(v) + " out of range for a " + kind_name(f.kind) + " field";
  }
  return ok;
}

struct ValueRules {
  bool ids_non_negative = true;
  bool allow_nonfinite = false;
};

/// Parses `token` into field `f` of `record`; false (with `why`) on a bad value.
inline bool store_value(char* record, const FieldDesc& f, std::string_view token,
                        const ValueRules& rules, std::string& why) {
  if (is_integer_kind(f.kind)) {
    std::int64_t v = 0;
    if (!parse_int(token, v)) {
      why = token.empty() ? "empty value where an integer was expected"
                          : "not an integer: " + quote(token);
      return false;
    }
    if (v < 0 && rules.ids_non_negative) {
      why = "negative id " + std::to_string(v) + " (integer fields are ids and must be >= 0)";
      return false;
    }
    return store_integer(record, f, v, why);
  }
  double v = 0;
  if (!parse_double(token, v)) {
    why =
        token.empty() ? "empty value where a number was expected" : "not a number: " + quote(token);
    return false;
  }
  if (f.kind == FieldKind::f32 && std::isfinite(v) &&
      std::abs(v) > static_cast<double>(std::numeric_limits<float>::max())) {
    why = "value " + quote(token) + " out of range for a float field";
    return false;
  }
  if (!std::isfinite(v) && !rules.allow_nonfinite) {
    why = "non-finite value " + quote(token) + (std::isnan(v) ? "" : " (or out of range)");
    return false;
  }
  if (f.kind == FieldKind::f32) {
    put(record, f.offset, static_cast<float>(v));
  } else {
    put(record, f.offset, v);
  }
  return true;
}

/// Grows a RecordSink by doubling; zero-filled room for one more record at a time.
class RecordWriter {
public:
  RecordWriter(RecordSink sink, std::size_t record_size) : sink_(sink), size_(record_size) {}
  /// Makes room for `expected` records in all (an estimate; add() grows beyond it).
  void reserve(std::size_t expected) {
    if (expected > capacity_) {
      capacity_ = expected;
      base_ = sink_.resize(sink_.owner, capacity_);
    }
  }
  char* add() {
    if (count_ == capacity_) {
      reserve(capacity_ < 16 ? 16 : capacity_ * 2);
    }
    return base_ + size_ * count_++;
  }
  /// Drops the record most recently added (it is zeroed for reuse).
  void drop_last() {
    --count_;
    std::memset(base_ + size_ * count_, 0, size_);
  }
  char* record(std::size_t i) { return base_ + size_ * i; }
  std::size_t count() const { return count_; }
  void finish() { base_ = sink_.resize(sink_.owner, count_); }

private:
  RecordSink sink_;
  std::size_t size_;
  std::size_t capacity_ = 0;
  std::size_t count_ = 0;
  char* base_ = nullptr;
};

} // namespace rotor::detail
