#pragma once
// Counting the values of a record's integer fields while a loader parses (private to
// distarray/src): the loader's side of detail::LoadedKeyCounts.

#include "FieldStore.h"
#include "rotor/distarray/detail/LoadedKeyCounts.h"
#include "rotor/distarray/detail/LoaderCore.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace rotor::detail {

/// Counts, per integer field given, how many parsed records hold each value. A field stops
/// being counted (and frees its counts) at its first value outside [0, k_max_value): the
/// counts stay at most 16 MiB a field, and the layout makes its own passes for that field.
class KeyValueCounter {
public:
  static constexpr std::int64_t k_max_value = std::int64_t{1} << 22;

  explicit KeyValueCounter(std::vector<FieldDesc> fields) {
    for (const FieldDesc& f : fields) {
      fields_.push_back({f, {}, {}, 0, true});
      fields_.back().pending.reserve(k_block);
    }
  }

  /// Counts the fields of one parsed record. The values wait in a block and are counted a
  /// block at a time: in a tight loop the counters' cache misses overlap, where one increment
  /// per parsed record stalled the parser on each (the loads of nf30 took 2x as long).
  void add(const char* record) {
    for (Field& f : fields_) {
      if (!f.counting) {
        continue;
      }
      const std::int64_t v = load_integer(record, f.desc); // integer fields only
      if (v < 0 || v >= k_max_value) {
        f.counting = false;
        f.counts = std::vector<std::uint32_t>();
        f.pending = std::vector<std::uint32_t>();
        continue;
      }
      f.pending.push_back(static_cast<std::uint32_t>(v));
      f.largest = std::max(f.largest, static_cast<std::uint32_t>(v));
      if (f.pending.size() == k_block) {
        flush(f);
      }
    }
    ++records_;
  }

  /// The counts of the fields still counted (none when this rank parsed 2^32 records or more:
  /// the counts are 32-bit), trimmed to the largest value seen.
  LoadedKeyCounts finish() {
    LoadedKeyCounts out;
    out.records = records_;
    if (records_ >= (std::size_t{1} << 32)) {
      return out;
    }
    for (Field& f : fields_) {
      flush(f);
      if (f.counting) {
        while (!f.counts.empty() && f.counts.back() == 0) {
          f.counts.pop_back();
        }
        f.counts.shrink_to_fit();
        out.fields.push_back({f.desc.offset, std::move(f.counts)});
      }
    }
    return out;
  }

private:
  static constexpr std::size_t k_block = 4096;

  struct Field {
    FieldDesc desc;
    std::vector<std::uint32_t> counts;
    std::vector<std::uint32_t> pending; ///< values not counted yet
    std::uint32_t largest = 0;          ///< largest value seen
    bool counting = true;
  };

  static void flush(Field& f) {
    if (!f.counting || f.pending.empty()) {
      return;
    }
    if (f.largest >= f.counts.size()) {
      const auto most = static_cast<std::size_t>(k_max_value);
      f.counts.resize(
          std::min(std::max<std::size_t>(std::size_t{f.largest} + 1, f.counts.size() * 2), most),
          0);
    }
    std::uint32_t* counts = f.counts.data();
    for (const std::uint32_t v : f.pending) {
      ++counts[v];
    }
    f.pending.clear();
  }

  std::vector<Field> fields_;
  std::size_t records_ = 0;
};

} // namespace rotor::detail
