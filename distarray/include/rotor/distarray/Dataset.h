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
/// once, whichever the distribution, and may move records between ranks and reorder them.
///
/// After a parallel loop (docs/design/records-after-loops.md): serial code sees the dataset as
/// before the loop, with the loop's writes: a replicated dataset whole on every rank, a loaded
/// one as the same share on the same rank, both in the dataset's order. The records come back
/// lazily, on the first access that shows them (begin(), end(), operator[], local_size(), ids(),
/// push_back(), reserve(), sort_by_keys(), shuffle(), save_binary()); loops that follow each other
/// pay nothing. That first access is collective when the loop spread the records over ranks:
/// every rank must make it (SPMD code does), not only rank 0 under `if (rotor::is_root())` --
/// touch the dataset on every rank first (e.g. `tokens.local_size();`). A rank left waiting is
/// stopped by the watchdog (`--rotor-timeout`) with a message naming the loop. size(), empty(),
/// distribution(), extent(), histogram() and remap() bring nothing back (their answer does not
/// depend on where records lie).
///
/// Record identity: every record has a global id (its position when the dataset was created),
/// which survives shuffles, sorts and moves between ranks. Ids are stored only when the session
/// records or replays the order of iterations (`--rotor-record-order`, `--rotor-replay-order`).

#include "rotor/distarray/MemoryLimit.h"
#include "rotor/distarray/detail/Collective.h"
#include "rotor/distarray/detail/CounterRng.h"
#include "rotor/distarray/detail/LoadedKeyCounts.h"
#include "rotor/distarray/detail/RecordFields.h"
#include "rotor/distarray/detail/RuntimeCache.h"

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
/// Called when the dataset at `identity` takes a new order of its own (sort_by_keys, shuffle):
/// a replay forgets the order it would have put back.
void record_order_changed(const void* identity);
std::int64_t global_sum(std::int64_t local);
std::int64_t global_max(std::int64_t local);
/// Every rank's `bytes` bytes at `data`, concatenated in rank order.
std::vector<char> gather_all(const void* data, std::size_t bytes);
/// Throws std::out_of_range (on every rank, collectively when `distributed`) if `min_value` < 0
/// on any rank; `local_index` is the offending local record on this rank (or -1).
void check_non_negative(std::int64_t min_value, std::int64_t local_index, bool distributed,
                        const char* operation);
/// Positions in the dataset's order of this rank's `count` records from compact origin codes
/// (two bytes per record in the dataset's order, held by the rank that held the record then: the
/// group of the record in the laid-out order, whose records keep the dataset's order inside a
/// group). Collective when `distributed` (gathers every rank's codes: two bytes per record).
std::vector<std::uint32_t> expand_origin_codes(const std::vector<std::uint16_t>& codes,
                                               std::size_t count, bool distributed);
/// A random permutation of [0, n) that depends only on (seed, n).
std::vector<std::int64_t> random_permutation(std::int64_t n, std::uint64_t seed);
/// The gathered index of the record at each position: order[positions[i]] = i. Throws
/// std::logic_error unless `positions` is a permutation of [0, positions.size()).
std::vector<std::size_t> order_of_positions(const std::vector<std::uint32_t>& positions);
/// The gather a dataset's first serial access after a parallel loop makes (while it lives):
/// counted, and named by the runtime's watchdog should another rank never come.
class SerialGatherScope {
public:
  SerialGatherScope(const char* loop_file, int loop_line);
  ~SerialGatherScope();
  SerialGatherScope(const SerialGatherScope&) = delete;
  SerialGatherScope& operator=(const SerialGatherScope&) = delete;
};
/// How many such gathers this process made (tests: loops in a row must not gather).
std::uint64_t serial_gather_count();
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
  /// `origins` (optional) say where the largest value of each key field was read (loaders);
  /// `counts` (optional) the records per value of its integer fields (loaders, LoadedKeyCounts.h).
  static Dataset distributed(std::vector<Record> records, std::uint64_t first_id,
                             std::vector<detail::KeyOrigin> origins = {},
                             detail::LoadedKeyCounts counts = {}) {
    Dataset d;
    d.key_origins_ = std::move(origins);
    if (counts.records == records.size()) {
      d.loaded_counts_ = std::move(counts);
      d.loaded_counts_.version = d.version_;
    }
    d.records_ = std::move(records);
    d.distribution_ = Distribution::distributed;
    d.home_ = Distribution::distributed;
    d.home_first_ = first_id;
    d.home_count_ = d.records_.size();
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
    settle();
    expand_origin();
    if (!ids_.empty() || (records_.empty() && detail::keep_record_ids())) {
      ids_.push_back(static_cast<std::uint64_t>(global_size_));
    }
    if (!origin_.empty()) {
      origin_.push_back(static_cast<std::uint32_t>(global_size_));
    }
    records_.push_back(r);
    ++home_count_;
    ++global_size_;
    ++version_;
  }
  void reserve(std::size_t n) {
    settle();
    records_.reserve(n);
  }

  /// This rank's records (after a parallel loop: brought back first, see above). In a replay run
  /// (`--rotor-replay-order`), begin() first puts them in the next recorded order.
  iterator begin() {
    settle();
    ++version_; // the caller may change records: a parallel loop checks its layout again
    detail::replay_reorder(this, records_.data(), sizeof(Record), ids_, records_.size());
    return records_.data();
  }
  iterator end() {
    settle();
    return records_.data() + records_.size();
  }
  const_iterator begin() const {
    settle_const();
    detail::replay_reorder(this, const_cast<Record*>(records_.data()), sizeof(Record),
                           const_cast<std::vector<std::uint64_t>&>(ids_), records_.size());
    return records_.data();
  }
  const_iterator end() const {
    settle_const();
    return records_.data() + records_.size();
  }
  Record& operator[](std::size_t i) {
    settle();
    ++version_;
    return records_[i];
  }
  const Record& operator[](std::size_t i) const {
    settle_const();
    return records_[i];
  }

  /// Records on all ranks (the same before and after a parallel loop; brings nothing back).
  std::int64_t size() const { return global_size_; }
  /// Records on this rank (after a parallel loop: brought back first, see above).
  std::size_t local_size() const {
    settle_const();
    return records_.size();
  }
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
  const std::vector<std::uint64_t>& ids() const {
    settle_const();
    return ids_;
  }

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

  /// Every rank's records, with their ids and positions in the dataset's order where any rank
  /// has them, concatenated in rank order (moved out of the dataset).
  struct Gathered {
    std::vector<Record> records;
    std::vector<std::uint64_t> ids;
    std::vector<std::uint32_t> origin;
  };

  /// The records of all ranks (collective when distributed; a replicated dataset's own).
  Gathered take_all() {
    const bool dist = distribution_ == Distribution::distributed;
    expand_origin();
    Gathered g;
    if (!dist) {
      g.records = std::move(records_);
      g.ids = std::move(ids_);
      g.origin = std::move(origin_);
      return g;
    }
    g.records = gathered<Record>(records_);
    // Ids travel when the session keeps them or any rank has them (the runtime may add them).
    std::int64_t with[2] = {detail::keep_record_ids() || !ids_.empty() ? 1 : 0,
                            origin_.empty() ? 0 : 1};
    detail::collective().allreduce_max(with, 2);
    if (with[0]) {
      g.ids = gathered<std::uint64_t>(ids_);
    }
    if (with[1]) {
      g.origin = gathered<std::uint32_t>(origin_);
    }
    return g;
  }

  template <class T> static std::vector<T> gathered(const std::vector<T>& local) {
    std::vector<char> bytes = detail::gather_all(local.data(), local.size() * sizeof(T));
    std::vector<T> all(bytes.size() / sizeof(T));
    if (!bytes.empty()) {
      std::memcpy(static_cast<void*>(all.data()), bytes.data(), bytes.size());
    }
    return all;
  }

  /// Gathers the global sequence (rank order), lets `make_order(all, pos, order)` permute
  /// `order` (indexes into `all`; `pos` are the records' ids or global positions), and keeps
  /// this rank's even share of the result.
  template <class MakeOrder> void reorder_globally(MakeOrder&& make_order) {
    settle();
    const bool dist = distribution_ == Distribution::distributed;
    Gathered g = take_all();
    const std::vector<Record>& all = g.records;
    // After a parallel loop reordered the records, their positions in the dataset's order
    // (origin) stand in for ids that are not kept.
    const bool have_ids = g.ids.size() == all.size() && !all.empty();
    const bool have_origin = !have_ids && g.origin.size() == all.size() && !all.empty();
    std::vector<std::uint64_t> pos(all.size());
    for (std::size_t i = 0; i < all.size(); ++i) {
      pos[i] = have_ids ? g.ids[i] : have_origin ? g.origin[i] : i;
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
    keep(g, order, first, last, have_ids); // the new sequence is the dataset's order
    detail::record_order_changed(this);
    home_first_ = first;
  }

  /// Keeps records all[order[k]] (and their ids) for k in [first, last) as this rank's records,
  /// in the dataset's order.
  void keep(const Gathered& g, const std::vector<std::size_t>& order, std::size_t first,
            std::size_t last, bool with_ids) {
    ++version_;
    home_count_ = last - first;
    records_.clear();
    records_.reserve(last - first);
    ids_.clear();
    origin_.clear();
    for (std::size_t k = first; k < last; ++k) {
      records_.push_back(g.records[order[k]]);
      if (with_ids) {
        ids_.push_back(g.ids[order[k]]);
      }
    }
  }

  void settle_const() const { const_cast<Dataset*>(this)->settle(); }

  /// After a parallel loop moved or reordered the records: brings them back to the distribution
  /// the dataset had before (replicated: all records on every rank; distributed: this rank's
  /// share from home_first_), in the dataset's order. Collective when the records are
  /// distributed now. Without positions (datasets of 2^32 records or more) they stay in the
  /// order the loop left them.
  void settle() {
    if (!scattered_) {
      return;
    }
    detail::SerialGatherScope scope(scattered_file_, scattered_line_);
    const std::size_t home_count = home_count_;
    Gathered g = take_all();
    const std::size_t n = g.records.size();
    std::vector<std::size_t> order;
    if (g.origin.size() == n && n > 0) {
      order = detail::order_of_positions(g.origin);
    } else {
      order.resize(n);
      std::iota(order.begin(), order.end(), std::size_t{0});
    }
    std::size_t first = 0, last = n;
    if (home_ == Distribution::distributed) {
      first = static_cast<std::size_t>(home_first_);
      last = first + home_count;
      if (last > n) {
        throw std::logic_error("rotor: internal: a rank's share of the dataset is past its end");
      }
    }
    keep(g, order, first, last, g.ids.size() == n && n > 0);
    distribution_ = home_;
    scattered_ = false;
  }

  /// origin_ from the compact codes, where the runtime left codes (collective when distributed).
  void expand_origin() {
    if (origin_coded_) {
      origin_ = detail::expand_origin_codes(origin_code_, records_.size(),
                                            distribution_ == Distribution::distributed);
      origin_code_ = std::vector<std::uint16_t>();
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
  /// The same, compact (when origin_coded_): the runtime's record exchange leaves two bytes per
  /// record this rank held in the dataset's order (expand_origin_codes); origin_ is computed from
  /// the codes where a serial loop or a reorder needs it (2 bytes a record less until then).
  std::vector<std::uint16_t> origin_code_;
  bool origin_coded_ = false;
  /// Bumped whenever the records may have changed (non-const access, reordering): a parallel
  /// loop whose cached layout saw the same version skips checking the records' keys.
  std::uint64_t version_ = 0;
  std::int64_t global_size_ = 0;
  Distribution distribution_ = Distribution::replicated;
  /// The distribution serial code sees (set when the dataset is made; a parallel loop may change
  /// distribution_ until settle() restores this one).
  Distribution home_ = Distribution::replicated;
  /// Distributed home: the dataset position of this rank's first record and how many it holds.
  std::uint64_t home_first_ = 0;
  std::size_t home_count_ = 0;
  /// Set by the runtime after a parallel loop that moved or reordered the records (the loop's
  /// FILE:LINE for messages): the first serial access settles them.
  bool scattered_ = false;
  const char* scattered_file_ = "?";
  int scattered_line_ = 0;
  /// Per key field of a loaded dataset: its largest value and where it was read (or empty).
  std::vector<detail::KeyOrigin> key_origins_;
  /// What the loader counted of this rank's records (detail::LoadedKeyCounts), as of version_
  /// loaded_counts_.version: stale once the counter moved on.
  detail::LoadedKeyCounts loaded_counts_;
  /// The runtime's record layouts for the parallel loops over this dataset (validated on reuse
  /// against the records' address, count and version_).
  detail::RuntimeCache layouts_;
  /// The runtime's copy of the records in device memory (runtime/detail/DeviceResidency.h).
  detail::RuntimeCache device_copy_;
};

} // namespace rotor
