#pragma once
/// \file
/// rotor::Dataset<Record>: the records a parallel loop iterates over.
///
/// \code
///   struct Rating { int32_t user; int32_t item; float value; };
///   rotor::Dataset<Rating> ratings = rotor::load_csv<Rating>("ratings.csv");
///   std::int64_t users = ratings.extent(&Rating::user);   // max user + 1, over all ranks
///   for (const Rating& r : ratings) { ... }                // this rank's records
/// \endcode
///
/// A record is a trivially copyable aggregate; its integer members are the key fields.
///
/// Distribution: a dataset loaded from a file is *distributed*: each rank holds a share of the
/// records (begin()/end() and local_size() are this rank's share; size() counts all ranks). A
/// dataset built in memory (push_back, or from a vector) is *replicated*: every rank built the
/// same records. A parallel loop (`#pragma rotor parallel_for`) always covers every record exactly
/// once, whichever the distribution, and may move records between ranks (the dataset then becomes
/// distributed). Outside parallel loops, a plain `for` sees this rank's records only.
///
/// Record identity: every record has a global id (its position when the dataset was created),
/// which survives shuffles, sorts and moves between ranks. Ids are stored only when the session
/// records or replays the order of iterations (`--rotor-record-order`, `--rotor-replay-order`).

#include "rotor/distarray/detail/Collective.h"
#include "rotor/distarray/MemoryLimit.h"
#include "rotor/distarray/detail/CounterRng.h"
#include "rotor/distarray/detail/RecordFields.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace rotor {

template <class Record> class Dataset;

namespace detail {
/// Friend of every Dataset: the runtime's way in (redistribution, block layout, replay).
struct DatasetInternals;
/// True when the session keeps record ids (order recording or replay is on).
bool keep_record_ids();
/// Called by Dataset::begin() in a replay run: reorders `records` (with `ids`) into the next
/// recorded order for the dataset at `identity`. No-op unless replaying.
void replay_reorder(const void* identity, void* records, std::size_t record_bytes,
                    std::vector<std::uint64_t>& ids, std::size_t count);
std::int64_t global_sum(std::int64_t local);
std::int64_t global_max(std::int64_t local);
/// Every rank's `bytes` bytes at `data`, concatenated in rank order.
std::vector<char> gather_all(const void* data, std::size_t bytes);
/// Throws std::out_of_range (on every rank, collectively when `distributed`) if `min_value` < 0
/// on any rank; `local_index` is the offending local record on this rank (or -1).
void check_non_negative(std::int64_t min_value, std::int64_t local_index, bool distributed,
                        const char* operation);
/// Positions in the dataset's order of this rank's `count` records from compact origin codes
/// (one byte per record in the dataset's order, held by the rank that held the record then: the
/// group of the record in the laid-out order, whose records keep the dataset's order inside a
/// group). Collective when `distributed` (gathers every rank's codes: one byte per record).
std::vector<std::uint32_t> expand_origin_codes(const std::vector<std::uint8_t>& codes,
                                               std::size_t count, bool distributed);
/// A random permutation of [0, n) that depends only on (seed, n).
std::vector<std::int64_t> random_permutation(std::int64_t n, std::uint64_t seed);
} // namespace detail

enum class Distribution { replicated, distributed };

template <class Record> class Dataset {
  static_assert(std::is_trivially_copyable_v<Record>,
                "rotor::Dataset: records must be trivially copyable (plain structs of numbers)");
  static_assert(std::is_aggregate_v<Record>,
                "rotor::Dataset: records must be aggregates (a struct with public data members)");

public:
  using value_type = Record;
  using iterator = Record*;
  using const_iterator = const Record*;

  Dataset() = default;
  /// A replicated dataset of these records (every rank must pass the same records).
  explicit Dataset(std::vector<Record> records) : records_(std::move(records)) {
    global_size_ = static_cast<std::int64_t>(records_.size());
    if (detail::keep_record_ids()) {
      ids_.resize(records_.size());
      for (std::size_t i = 0; i < ids_.size(); ++i) {
        ids_[i] = i;
      }
    }
  }
  /// A distributed dataset: this rank's share `records`, whose first record has global id
  /// `first_id` (loaders call this; every rank calls it).
  /// `origins` (optional) say where the largest value of each key field was read (loaders).
  static Dataset distributed(std::vector<Record> records, std::uint64_t first_id,
                             std::vector<detail::KeyOrigin> origins = {}) {
    Dataset d;
    d.key_origins_ = std::move(origins);
    d.records_ = std::move(records);
    d.distribution_ = Distribution::distributed;
    d.global_size_ = detail::global_sum(static_cast<std::int64_t>(d.records_.size()));
    if (detail::keep_record_ids()) {
      d.ids_.resize(d.records_.size());
      for (std::size_t i = 0; i < d.ids_.size(); ++i) {
        d.ids_[i] = first_id + i;
      }
    }
    return d;
  }

  /// Appends a record (replicated datasets only; every rank must append the same records).
  void push_back(const Record& r) {
    expand_origin();
    if (!ids_.empty() || (records_.empty() && detail::keep_record_ids())) {
      ids_.push_back(static_cast<std::uint64_t>(global_size_));
    }
    if (!origin_.empty()) {
      origin_.push_back(static_cast<std::uint32_t>(global_size_));
    }
    records_.push_back(r);
    ++global_size_;
    ++version_;
  }
  void reserve(std::size_t n) { records_.reserve(n); }

  /// This rank's records. In a replay run (`--rotor-replay-order`), begin() first puts them in
  /// the next recorded order.
  iterator begin() {
    ++version_; // the caller may change records: a parallel loop checks its layout again
    detail::replay_reorder(this, records_.data(), sizeof(Record), ids_, records_.size());
    return records_.data();
  }
  iterator end() { return records_.data() + records_.size(); }
  const_iterator begin() const {
    detail::replay_reorder(this, const_cast<Record*>(records_.data()), sizeof(Record),
                           const_cast<std::vector<std::uint64_t>&>(ids_), records_.size());
    return records_.data();
  }
  const_iterator end() const { return records_.data() + records_.size(); }
  Record& operator[](std::size_t i) {
    ++version_;
    return records_[i];
  }
  const Record& operator[](std::size_t i) const { return records_[i]; }

  /// Records on all ranks.
  std::int64_t size() const { return global_size_; }
  /// Records on this rank.
  std::size_t local_size() const { return records_.size(); }
  bool empty() const { return global_size_ == 0; }
  Distribution distribution() const { return distribution_; }

  /// One more than the largest value of integer field `f` over all records (all ranks); 0 if
  /// empty. Throws std::out_of_range naming the record if a value is negative.
  template <class F> std::int64_t extent(F Record::*f) const {
    static_assert(std::is_integral_v<F>, "extent() needs an integer field");
    check_keys_non_negative(f, "extent");
    std::int64_t m = -1;
    for (const Record& r : records_) {
      m = std::max<std::int64_t>(m, static_cast<std::int64_t>(r.*f));
    }
    const std::int64_t n = reduce_max(m) + 1;
    if (!key_origins_.empty()) {
      // The largest value is still the one the loader saw: remember its FILE:LINE, so that an
      // array sized by this extent that does not fit can name it (MemoryLimit.h).
      const Record probe{};
      const auto offset = static_cast<std::uint32_t>(reinterpret_cast<const char*>(&(probe.*f)) -
                                                     reinterpret_cast<const char*>(&probe));
      for (const detail::KeyOrigin& o : key_origins_) {
        if (o.offset == offset && o.max + 1 == n) {
          detail::note_extent(n, o);
        }
      }
    }
    return n;
  }

  /// Record counts per value of integer field `f` over all records (all ranks): entry v counts
  /// the records whose field is v; extent(f) entries. Throws std::out_of_range if a value is
  /// negative. Collective for a distributed dataset.
  template <class F> std::vector<std::int64_t> histogram(F Record::*f) const {
    const std::int64_t n = extent(f);
    detail::check_allocation("the histogram of a Dataset field (int64_t counts)", &n, 1,
                             sizeof(std::int64_t));
    std::vector<std::int64_t> counts(static_cast<std::size_t>(n), 0);
    for (const Record& r : records_) {
      ++counts[static_cast<std::size_t>(r.*f)];
    }
    if (distribution_ == Distribution::distributed && n > 0) {
      detail::collective().allreduce_sum(counts.data(), counts.size());
    }
    return counts;
  }

  /// Sorts all records (all ranks) by their integer fields in declaration order (lexicographic),
  /// stably: equal keys keep their order (by id when ids are kept). The result does not depend
  /// on the number of ranks: rank r of P holds records [N*r/P, N*(r+1)/P) of the sorted
  /// sequence. Collective for a distributed dataset (it gathers the records: O(N) memory per
  /// rank while it runs).
  void sort_by_keys() {
    reorder_globally([](const std::vector<Record>& all, const std::vector<std::uint64_t>&,
                        std::vector<std::size_t>& order) {
      std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return detail::compare_keys(all[a], all[b]) < 0;
      });
    });
  }

  /// Puts all records (all ranks) in a random order that depends only on `seed` and the
  /// records' ids (their positions when the dataset was created, or in the current global order
  /// when ids are not kept) -- never on the number of ranks or threads. Collective, like
  /// sort_by_keys().
  void shuffle(std::uint64_t seed) {
    reorder_globally([seed](const std::vector<Record>& all, const std::vector<std::uint64_t>& pos,
                            std::vector<std::size_t>& order) {
      std::vector<std::uint64_t> key(all.size());
      for (std::size_t i = 0; i < all.size(); ++i) {
        key[i] = detail::counter_bits(seed, 0x5348554646ULL, pos[i]);
      }
      std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return key[a] != key[b] ? key[a] < key[b] : pos[a] < pos[b];
      });
    });
  }

  /// Renames the values of integer field `f` by a random permutation of [0, extent(f)) that
  /// depends only on `seed` and the extent: a record with value v gets perm[v]. Spreads heavy
  /// keys (popular users, frequent words) over blocks for load balance. Returns perm (new =
  /// perm[old]); records stay where they are. Collective for a distributed dataset.
  template <class F> std::vector<std::int64_t> remap(F Record::*f, std::uint64_t seed) {
    static_assert(std::is_integral_v<F>, "remap() needs an integer field");
    const std::int64_t n = extent(f);
    detail::check_allocation("Dataset::remap's permutation (int64_t)", &n, 1, sizeof(std::int64_t));
    std::vector<std::int64_t> perm = detail::random_permutation(n, seed);
    ++version_;
    for (Record& r : records_) {
      r.*f = static_cast<F>(perm[static_cast<std::size_t>(r.*f)]);
    }
    return perm;
  }

  /// Record ids of this rank's records (parallel to the records); empty unless the session
  /// keeps ids (see Record identity above).
  const std::vector<std::uint64_t>& ids() const { return ids_; }

private:
  friend struct detail::DatasetInternals;

  template <class F> void check_keys_non_negative(F Record::*f, const char* operation) const {
    if constexpr (std::is_signed_v<F>) {
      std::int64_t lowest = 0;
      std::int64_t where = -1;
      for (std::size_t i = 0; i < records_.size(); ++i) {
        if (records_[i].*f < lowest) {
          lowest = records_[i].*f;
          where = static_cast<std::int64_t>(i);
        }
      }
      detail::check_non_negative(lowest, where, distribution_ == Distribution::distributed,
                                 operation);
    }
  }

  /// Gathers the global sequence (rank order), lets `make_order(all, pos, order)` permute
  /// `order` (indexes into `all`; `pos` are the records' ids or global positions), and keeps
  /// this rank's even share of the result.
  template <class MakeOrder> void reorder_globally(MakeOrder&& make_order) {
    const bool dist = distribution_ == Distribution::distributed;
    expand_origin();
    std::vector<Record> all;
    std::vector<std::uint64_t> all_ids;
    if (dist) {
      std::vector<char> bytes =
          detail::gather_all(records_.data(), records_.size() * sizeof(Record));
      all.resize(bytes.size() / sizeof(Record));
      if (!bytes.empty()) {
        std::memcpy(static_cast<void*>(all.data()), bytes.data(), bytes.size());
      }
      // Ids travel when the session keeps them or any rank has them (the runtime may add them).
      std::int64_t with_ids = detail::keep_record_ids() || !ids_.empty() ? 1 : 0;
      detail::collective().allreduce_max(&with_ids, 1);
      if (with_ids) {
        std::vector<char> id_bytes =
            detail::gather_all(ids_.data(), ids_.size() * sizeof(std::uint64_t));
        all_ids.resize(id_bytes.size() / sizeof(std::uint64_t));
        if (!id_bytes.empty()) {
          std::memcpy(all_ids.data(), id_bytes.data(), id_bytes.size());
        }
      }
    } else {
      all = std::move(records_);
      all_ids = std::move(ids_);
    }
    // After a parallel loop reordered the records, their positions in the dataset's order
    // (origin_) stand in for ids that are not kept.
    std::vector<std::uint32_t> all_origin;
    std::int64_t with_origin = origin_.empty() ? 0 : 1;
    if (dist) {
      detail::collective().allreduce_max(&with_origin, 1);
    }
    if (with_origin) {
      if (dist) {
        std::vector<char> o = detail::gather_all(origin_.data(), origin_.size() * 4);
        all_origin.resize(o.size() / 4);
        if (!o.empty()) {
          std::memcpy(all_origin.data(), o.data(), o.size());
        }
      } else {
        all_origin = std::move(origin_);
      }
    }
    const bool have_ids = all_ids.size() == all.size() && !all.empty();
    const bool have_origin = !have_ids && all_origin.size() == all.size() && !all.empty();
    std::vector<std::uint64_t> pos(all.size());
    for (std::size_t i = 0; i < all.size(); ++i) {
      pos[i] = have_ids ? all_ids[i] : have_origin ? all_origin[i] : i;
    }
    std::vector<std::size_t> order(all.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    if (have_ids || have_origin) {
      // Ties (sort) and positions (shuffle) follow ids: start from id order.
      std::stable_sort(order.begin(), order.end(),
                       [&](std::size_t a, std::size_t b) { return pos[a] < pos[b]; });
    }
    make_order(all, pos, order);
    std::size_t first = 0;
    std::size_t last = all.size();
    if (dist) {
      const auto& c = detail::collective();
      const auto n = static_cast<std::uint64_t>(all.size());
      first = static_cast<std::size_t>(n * static_cast<std::uint64_t>(c.rank()) /
                                       static_cast<std::uint64_t>(c.size()));
      last = static_cast<std::size_t>(n * static_cast<std::uint64_t>(c.rank() + 1) /
                                      static_cast<std::uint64_t>(c.size()));
    }
    ++version_;
    records_.clear();
    records_.reserve(last - first);
    ids_.clear();
    origin_.clear(); // the new sequence is the dataset's order
    for (std::size_t k = first; k < last; ++k) {
      records_.push_back(all[order[k]]);
      if (have_ids) {
        ids_.push_back(all_ids[order[k]]);
      }
    }
  }

  /// origin_ from the compact codes, where the runtime left codes (collective when distributed).
  void expand_origin() {
    if (origin_coded_) {
      origin_ = detail::expand_origin_codes(origin_code_, records_.size(),
                                            distribution_ == Distribution::distributed);
      origin_code_ = std::vector<std::uint8_t>();
      origin_coded_ = false;
    }
  }

  std::int64_t reduce_max(std::int64_t m) const {
    return distribution_ == Distribution::distributed ? detail::global_max(m) : m;
  }

  std::vector<Record> records_;
  std::vector<std::uint64_t> ids_; ///< empty unless detail::keep_record_ids()
  /// Set by the runtime when a parallel loop reordered or moved the records: the position of
  /// each local record in the dataset's sequence before that (serial loops run in that order).
  /// Empty: the records are in the dataset's order.
  std::vector<std::uint32_t> origin_;
  /// The same, compact (when origin_coded_): the runtime's record exchange leaves one byte per
  /// record this rank held in the dataset's order (expand_origin_codes); origin_ is computed from
  /// the codes where a serial loop or a reorder needs it (4 bytes a record less until then).
  std::vector<std::uint8_t> origin_code_;
  bool origin_coded_ = false;
  /// Bumped whenever the records may have changed (non-const access, reordering): a parallel
  /// loop whose cached layout saw the same version skips checking the records' keys.
  std::uint64_t version_ = 0;
  std::int64_t global_size_ = 0;
  Distribution distribution_ = Distribution::replicated;
  /// Per key field of a loaded dataset: its largest value and where it was read (or empty).
  std::vector<detail::KeyOrigin> key_origins_;
};

} // namespace rotor
