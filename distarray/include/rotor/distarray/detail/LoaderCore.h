#pragma once
/// \file
/// Not for user code (an internal header that Rotor's public headers include).
/// The non-template core of the loaders: records are described as a list of fields (kind and
/// byte offset), so the parsers live in .cpp files and the templates in Loaders.h only adapt.

#include "rotor/distarray/MemoryLimit.h"
#include "rotor/distarray/detail/LoadedKeyCounts.h"
#include "rotor/distarray/detail/RecordFields.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace rotor {
struct CsvOptions;
struct CsvNames;
struct BagOfWordsInfo;
} // namespace rotor

namespace rotor::detail {

enum class FieldKind : std::uint8_t { i8, i16, i32, i64, u8, u16, u32, u64, f32, f64 };

struct FieldDesc {
  FieldKind kind;
  std::uint32_t offset;
};

template <class T> constexpr FieldKind field_kind_of() {
  using U = std::remove_cv_t<T>;
  static_assert(std::is_arithmetic_v<U> && !std::is_same_v<U, bool>,
                "rotor loaders: record fields must be integers or floating-point numbers");
  if constexpr (std::is_floating_point_v<U>) {
    static_assert(sizeof(U) == 4 || sizeof(U) == 8, "rotor loaders: float or double fields only");
    return sizeof(U) == 4 ? FieldKind::f32 : FieldKind::f64;
  } else if constexpr (std::is_signed_v<U>) {
    return sizeof(U) == 1   ? FieldKind::i8
           : sizeof(U) == 2 ? FieldKind::i16
           : sizeof(U) == 4 ? FieldKind::i32
                            : FieldKind::i64;
  } else {
    return sizeof(U) == 1   ? FieldKind::u8
           : sizeof(U) == 2 ? FieldKind::u16
           : sizeof(U) == 4 ? FieldKind::u32
                            : FieldKind::u64;
  }
}

/// The fields of Record in declaration order.
template <class Record> std::vector<FieldDesc> describe_fields() {
  std::vector<FieldDesc> fields;
  Record r{};
  const char* base = reinterpret_cast<const char*>(&r);
  for_each_field(r, [&](auto& f) {
    fields.push_back({field_kind_of<std::remove_reference_t<decltype(f)>>(),
                      static_cast<std::uint32_t>(reinterpret_cast<const char*>(&f) - base)});
  });
  return fields;
}

/// Where a parser puts records: it asks for room for `count` records (zero-filled) and gets the
/// address of the first.
struct RecordSink {
  void* owner;
  char* (*resize)(void* owner, std::size_t count);
};

template <class Record> RecordSink sink_for(std::vector<Record>& v) {
  return {&v, [](void* owner, std::size_t count) {
            auto& vec = *static_cast<std::vector<Record>*>(owner);
            vec.resize(count);
            return reinterpret_cast<char*>(vec.data());
          }};
}

struct RecordLayout {
  std::vector<FieldDesc> fields;
  std::size_t record_size;
};

/// Most bytes of records one rank may load (default: detail::rank_memory_limit(), MemoryLimit.h). A
/// loader that would need more stops with an InputError instead of being killed by the OS.
std::size_t loader_memory_limit();
/// Changes the limit (0 restores the default); fuzzers and tests lower it.
void set_loader_memory_limit(std::size_t bytes);
/// "1.5 GB" and the like, for messages.
std::string human_bytes(double bytes);

/// Parses this rank's share; returns the global id of its first record. Collective. `origins`
/// (optional) receives, per integer field read as a number, its largest value over all ranks and
/// the FILE:LINE of its first occurrence (the same on every rank); `counts` (optional) this
/// rank's records per value of those fields (LoadedKeyCounts.h), counted while parsing.
std::uint64_t load_delimited_raw(const std::string& path, const CsvOptions& options,
                                 const RecordLayout& layout, RecordSink sink, CsvNames* names,
                                 std::vector<KeyOrigin>* origins = nullptr,
                                 LoadedKeyCounts* counts = nullptr);
std::uint64_t load_uci_bow_raw(const std::string& path, const RecordLayout& layout, RecordSink sink,
                               BagOfWordsInfo* info);
/// Binary cache. `layout_tag` identifies the record type (field kinds and offsets).
std::uint64_t layout_tag(const RecordLayout& layout);
void save_binary_raw(const std::string& path, const void* records, std::size_t count,
                     const RecordLayout& layout, bool distributed);
std::uint64_t load_binary_raw(const std::string& path, const RecordLayout& layout, RecordSink sink);

} // namespace rotor::detail
