#pragma once
/// \file
/// Not for user code (an internal header that Rotor's public headers include).
/// Records per value of the integer fields of a dataset, counted by a loader while it parsed
/// this rank's records. The first parallel loop's layout takes its key ranges and histograms
/// from them instead of two passes over the records (runtime/src/Layout.cpp); a Dataset keeps
/// them only while its records are the ones counted (its change counter unchanged).

#include <cstddef>
#include <cstdint>
#include <vector>

namespace rotor::detail {

/// One field's counts: counts[v] = this rank's records whose field is v.
struct FieldValueCounts {
  std::uint32_t offset = 0; ///< byte offset of the field in the record
  std::vector<std::uint32_t> counts;
};

/// What a loader counted: the fields it could count (values in [0, 2^22) only) over `records`
/// local records, described as of the dataset's change counter `version`.
struct LoadedKeyCounts {
  std::vector<FieldValueCounts> fields;
  std::size_t records = 0;
  std::uint64_t version = 0;

  /// The counts of the field at byte `offset`, or null.
  const std::vector<std::uint32_t>* of(std::uint32_t offset) const {
    for (const FieldValueCounts& f : fields) {
      if (f.offset == offset) {
        return &f.counts;
      }
    }
    return nullptr;
  }
};

} // namespace rotor::detail
