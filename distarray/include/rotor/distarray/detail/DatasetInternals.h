#pragma once
/// \file
/// The runtime's way into a Dataset (friend access): its records, their global ids, replacing
/// them after a redistribution, and the distribution flag. Not for user code.

#include "rotor/distarray/Dataset.h"

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace rotor::detail {

/// Seam between Dataset and the runtime's order recorder (runtime/src/OrderRecorder.cpp): the
/// runtime installs these; without them ids are not kept and Dataset::begin() reorders nothing.
struct RecordOrderHooks {
  /// True when datasets must keep record ids.
  bool (*keep_ids)() = nullptr;
  /// Called by Dataset::begin(): in a replay run, reorders `records` (and `ids`).
  void (*on_begin)(const void* identity, void* records, std::size_t record_bytes,
                   std::vector<std::uint64_t>& ids, std::size_t count) = nullptr;
  /// Called when a dataset's records take a new order of their own (sort_by_keys, shuffle).
  void (*on_new_order)(const void* identity) = nullptr;
};
void set_record_order_hooks(const RecordOrderHooks& hooks);

/// Seam for the watchdog (runtime/src/Watchdog.cpp): called around the gather a dataset's first
/// serial access after a parallel loop makes (SerialGatherScope), with that loop's FILE:LINE.
struct SerialGatherHooks {
  void (*begin)(const char* loop_file, int loop_line) = nullptr;
  void (*end)() = nullptr;
};
void set_serial_gather_hooks(const SerialGatherHooks& hooks);

struct DatasetInternals {
  template <class R> static std::vector<R>& records(Dataset<R>& d) { return d.records_; }
  template <class R> static std::vector<std::uint64_t>& ids(Dataset<R>& d) { return d.ids_; }
  /// Positions in the dataset's sequence of the local records after the runtime reordered them
  /// (empty: in order). Computes them from compact codes first if the dataset has codes
  /// (collective for a distributed dataset).
  template <class R> static std::vector<std::uint32_t>& origin(Dataset<R>& d) {
    d.expand_origin();
    return d.origin_;
  }
  /// True when the records are not in the dataset's order (origin or codes set); no collective.
  template <class R> static bool has_origin(const Dataset<R>& d) {
    return d.origin_coded_ || !d.origin_.empty();
  }
  /// Compact origin: two bytes per record this rank held in the dataset's order (see
  /// detail::expand_origin_codes).
  template <class R> static void set_origin_codes(Dataset<R>& d, std::vector<std::uint16_t> codes) {
    d.origin_.clear();
    d.origin_code_ = std::move(codes);
    d.origin_coded_ = true;
  }
  /// The runtime's cached record layouts for loops over `d` (runtime/src/Layout.cpp).
  template <class R> static std::shared_ptr<void>& layouts(Dataset<R>& d) {
    return d.layouts_.state();
  }
  /// The runtime's device copy of the records (runtime/detail/DeviceResidency.h).
  template <class R> static std::shared_ptr<void>& device_copy(Dataset<R>& d) {
    return d.device_copy_.state();
  }
  /// The loader's counts of the integer field at byte `offset` of this rank's records (entry v:
  /// records whose field is v), while the records are the ones it counted; else null.
  template <class R>
  static const std::vector<std::uint32_t>* loaded_key_counts(const Dataset<R>& d,
                                                             std::uint32_t offset) {
    const LoadedKeyCounts& c = d.loaded_counts_;
    if (c.version != d.version_ || c.records != d.records_.size()) {
      return nullptr;
    }
    return c.of(offset);
  }
  /// Frees the loader's counts (the records moved: they no longer describe them).
  template <class R> static void drop_loaded_key_counts(Dataset<R>& d) {
    d.loaded_counts_ = LoadedKeyCounts();
  }
  /// The records' change counter (the runtime bumps it when it reorders or moves them).
  template <class R> static std::uint64_t& version(Dataset<R>& d) { return d.version_; }
  template <class R> static void set_distribution(Dataset<R>& d, Distribution dist) {
    d.distribution_ = dist;
  }
  /// Replaces this rank's share (and ids) after the runtime moved records between ranks.
  template <class R>
  static void replace(Dataset<R>& d, std::vector<R> records, std::vector<std::uint64_t> ids,
                      Distribution dist) {
    d.records_ = std::move(records);
    d.ids_ = std::move(ids);
    ++d.version_;
    d.distribution_ = dist;
  }
  /// A parallel loop over `d` (at FILE:LINE) ended or stopped: when it left the records moved
  /// between ranks or out of the dataset's order, the first serial access brings them back
  /// (Dataset::settle). The next loop may run over them as they lie.
  template <class R> static void loop_finished(Dataset<R>& d, const char* file, int line) {
    d.scattered_ = has_origin(d) || d.distribution_ != d.home_;
    if (d.scattered_) {
      d.scattered_file_ = file ? file : "?";
      d.scattered_line_ = line;
    }
  }
  /// Gives records ids 0.. (position order) when the dataset has none yet; replicated datasets
  /// only (distributed ones got theirs from the loader).
  template <class R> static void ensure_ids(Dataset<R>& d) {
    if (d.ids_.size() != d.records_.size()) {
      d.ids_.resize(d.records_.size());
      for (std::size_t i = 0; i < d.ids_.size(); ++i) {
        d.ids_[i] = i;
      }
    }
  }
};

} // namespace rotor::detail
