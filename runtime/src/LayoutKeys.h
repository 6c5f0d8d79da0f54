#pragma once
/// \file
/// The keys a record layout reads (runtime/src/Layout.cpp): each partition field's key range and
/// histogram over this rank's records (and all ranks'), from the loader's counts where it left
/// them (Dataset loaded from a file, records untouched since) or else from passes over the
/// records on the session's threads, a block of keys at a time.

#include "Arena.h"
#include "Layout.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rotor::detail {

/// Runs fn(begin, end, piece) over up to `pieces` contiguous parts of [0, n) (at least 64k
/// records each) on the session's threads; returns how many parts it used.
template <class Fn> std::size_t in_pieces(std::size_t n, int pieces, const Fn& fn) {
  const std::size_t p =
      std::clamp<std::size_t>(n >> 16, 1, static_cast<std::size_t>(std::max(pieces, 1)));
  if (p == 1) {
    fn(std::size_t{0}, n, std::size_t{0});
  } else {
    arena_run(p, [&](std::size_t k) { fn(n * k / p, n * (k + 1) / p, k); });
  }
  return p;
}

/// Records a layout pass reads keys of at once (a block of each field's keys stays in L1).
constexpr std::size_t k_key_block = 2048;

/// Transformed keys of local record i: the plan fields replaced by matrix * (plan fields) when
/// skewed. The matrix is over all of the plan's fields, also where the base partitions fewer.
void transformed_keys(const LayoutRequest& req, SpaceAccess& space, std::size_t i,
                      std::int64_t* out, std::int64_t* scratch);

/// The keys of this rank's records as the layout reads them: kept in memory (transformed) where
/// they are needed again (ordered or skewed loops), otherwise read from the records on every
/// pass (peak memory ~ the records).
class LayoutKeys {
public:
  LayoutKeys(const LayoutRequest& req, SpaceAccess& space);
  bool kept() const { return keep_; }
  int count() const { return nkeys_; }
  /// Reads the keys again (the records moved).
  void reload();
  /// All keys of local record i: a pointer into the kept keys, or `buffer` (count() + 1 values)
  /// filled from the record. Safe from several threads with their own buffers.
  const std::int64_t* read(std::size_t i, std::int64_t* buffer) const;
  /// Key `key` of local records [begin, end) into out[0, end - begin) (at most k_key_block).
  void block(int key, std::size_t begin, std::size_t end, std::int64_t* out) const;
  /// The loader's counts of every partition field (LoadedKeyCounts.h), when the keys are the
  /// records' own (not transformed) and the loader counted each field; else empty.
  std::vector<const std::vector<std::uint32_t>*> loaded_counts() const;
  std::vector<std::int64_t>& kept_keys() { return keys_; }
  void release() { keys_ = std::vector<std::int64_t>(); }

private:
  const LayoutRequest& req_;
  SpaceAccess& space_;
  const int nkeys_;
  const bool keep_;
  std::vector<std::int64_t> keys_, scratch_;
};

/// Each partition field's key range: lo[j]..hi[j], lo > hi when there are no records.
struct KeyRanges {
  std::vector<std::int64_t> lo, hi;
};

/// The key ranges over this rank's `n` records (all ranks' when `global`, collective).
KeyRanges key_ranges(const LayoutRequest& req, const LayoutKeys& keys, std::size_t n, bool global);

/// Histogram bins of 2^shift key values so that a field's range needs at most 2^17 bins (1 MiB
/// a thread: the histogram and the table of each value's tile stay in the cache).
int bin_shift(std::int64_t range);
/// Bins of 2^shift values that cover `range` values (0 when range <= 0).
std::size_t bins(std::int64_t range, int shift);

/// Record counts per bin of every field (bins of 2^s.bin_shift[j] key values from r.lo[j]), over
/// this rank's `n` records (all ranks' when `global`, collective).
std::vector<std::vector<std::int64_t>> histograms(const LayoutRequest& req, const LayoutKeys& keys,
                                                  std::size_t n, const KeyRanges& r,
                                                  const Schedule& s, bool global);

} // namespace rotor::detail
