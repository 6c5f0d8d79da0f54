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

#include "rotor/distarray/detail/RecordFields.h"

#include <cstdint>
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
  static Dataset distributed(std::vector<Record> records, std::uint64_t first_id) {
    Dataset d;
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
    if (!ids_.empty() || (records_.empty() && detail::keep_record_ids())) {
      ids_.push_back(static_cast<std::uint64_t>(global_size_));
    }
    records_.push_back(r);
    ++global_size_;
  }
  void reserve(std::size_t n) { records_.reserve(n); }

  /// This rank's records. In a replay run (`--rotor-replay-order`), begin() first puts them in
  /// the next recorded order.
  iterator begin() {
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
  Record& operator[](std::size_t i) { return records_[i]; }
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
    std::int64_t m = -1;
    for (const Record& r : records_) {
      m = std::max<std::int64_t>(m, static_cast<std::int64_t>(r.*f));
    }
    return reduce_max(m) + 1;
  }

private:
  friend struct detail::DatasetInternals;
  std::int64_t reduce_max(std::int64_t m) const {
    return distribution_ == Distribution::distributed ? detail::global_max(m) : m;
  }

  std::vector<Record> records_;
  std::vector<std::uint64_t> ids_; ///< empty unless detail::keep_record_ids()
  std::int64_t global_size_ = 0;
  Distribution distribution_ = Distribution::replicated;
};

} // namespace rotor
