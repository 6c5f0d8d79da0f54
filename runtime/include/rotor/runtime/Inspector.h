#pragma once
/// \file
/// The inspector rotor-cc emits for a loop that is not over a rotor::Dataset or IndexSpace
/// (namespace rotor::codegen): before run_loop it computes each iteration's key values into a
/// Dataset of small key records (codegen::Iteration<N>), and the executor runs the plan over
/// them. docs/design/codegen-contract.md, "Loops over a std::vector", has the emitted text.
///
/// \code
///   // before (user code)
///   #pragma rotor parallel_for
///   for (const Rating& r : ratings) { ... }
///
///   // after (rotor-cc output, abridged)
///   {
///     static ::rotor::codegen::Inspection<2> rotor_inspection;
///     auto&& rotor_range = ratings;
///     auto& rotor_iterations =
///         rotor_inspection.records(rotor_range, &Rating::user, &Rating::item);
///     ::rotor::codegen::run_loop(..., rotor_iterations, ::rotor::codegen::iteration_keys<2>(),
///         ..., [&](const ::rotor::codegen::Iteration<2>& rotor_iteration, ...) {
///           const Rating& r = rotor_range[rotor_iteration.at];
///           ...  // the body, unchanged
///         });
///   }
/// \endcode
///
/// Every rank runs the inspector on its own copy of the program's data (the same values on every
/// rank, as for a replicated Dataset built in memory), so the iteration dataset is replicated and
/// the runtime spreads it as it spreads any replicated dataset. One Inspection lives per call
/// site (a function-local static): it keeps the dataset, and with it the runtime's cached record
/// layouts, while the freshly computed keys equal last time's.

#include "rotor/distarray/Dataset.h"
#include "rotor/distarray/detail/Collective.h"
#include "rotor/distarray/detail/DatasetInternals.h"
#include "rotor/runtime/ChainReads.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace rotor::codegen {

/// One iteration of an inspected loop: its N key values (the loop's key fields in the order of
/// the analysis' LoopModel::fields) and its position `at` in the iteration sequence (for a loop
/// over a std::vector, the element's index). A plain record, so a Dataset can hold it.
template <int N> struct Iteration;
template <> struct Iteration<0> { std::int64_t at; };
template <> struct Iteration<1> { std::int64_t k0, at; };
template <> struct Iteration<2> { std::int64_t k0, k1, at; };
template <> struct Iteration<3> { std::int64_t k0, k1, k2, at; };
template <> struct Iteration<4> { std::int64_t k0, k1, k2, k3, at; };
template <> struct Iteration<5> { std::int64_t k0, k1, k2, k3, k4, at; };
template <> struct Iteration<6> { std::int64_t k0, k1, k2, k3, k4, k5, at; };
/// The most key fields an inspected loop may have (rotor-cc refuses more with an error).
inline constexpr int k_max_inspected_keys = 6;

/// The key reader of an index loop's index used as a key (`assignments[i] = c` in a loop
/// `for (i < v.size())` over records): the record's position i.
struct RecordPosition {};

} // namespace rotor::codegen

namespace rotor::detail {
/// The N keys of an inspected iteration into out[0..N), and back.
template <int N> void copy_keys(const codegen::Iteration<N>& it, std::int64_t* out) {
  static_assert(sizeof(codegen::Iteration<N>) == (N + 1) * sizeof(std::int64_t));
  std::memcpy(out, &it, N * sizeof(std::int64_t));
}
template <int N> void set_keys(codegen::Iteration<N>& it, const std::int64_t* keys) {
  std::memcpy(&it, keys, N * sizeof(std::int64_t));
}

/// A record an inspected loop may write and share between ranks byte by byte: trivially
/// copyable, or a std::pair of such (std::pair's assignment makes it formally not trivially
/// copyable; its members are copied one by one). `bytes`: its size on the wire.
template <class T> struct is_bytewise_record {
  static constexpr bool value = std::is_trivially_copyable_v<T>;
  static constexpr std::size_t bytes = sizeof(T);
};
template <class A, class B> struct is_bytewise_record<std::pair<A, B>> {
  static constexpr bool value = is_bytewise_record<A>::value && is_bytewise_record<B>::value;
  static constexpr std::size_t bytes = is_bytewise_record<A>::bytes + is_bytewise_record<B>::bytes;
};
template <class T> void store_record(char* out, const T& r) {
  std::memcpy(out, &r, sizeof(T));
}
template <class A, class B> void store_record(char* out, const std::pair<A, B>& r) {
  store_record(out, r.first);
  store_record(out + is_bytewise_record<A>::bytes, r.second);
}
template <class T> void load_record(const char* in, T& r) {
  std::memcpy(static_cast<void*>(&r), in, sizeof(T));
}
template <class A, class B> void load_record(const char* in, std::pair<A, B>& r) {
  load_record(in, r.first);
  load_record(in + is_bytewise_record<A>::bytes, r.second);
}
/// Key `field` of `record`, the vector's element at `position`.
template <class F, class Record>
std::int64_t key_value(const F& field, const Record& record, std::size_t position) {
  if constexpr (std::is_same_v<F, codegen::RecordPosition>) {
    return static_cast<std::int64_t>(position);
  } else {
    return static_cast<std::int64_t>(std::invoke(field, record));
  }
}

} // namespace rotor::detail

namespace rotor::codegen {

/// The key list of an Iteration<N> dataset (run_loop's `keys` argument).
template <int N> struct IterationKeys {
  static constexpr int size = N;
  void extract(const Iteration<N>& it, std::int64_t* out) const {
    ::rotor::detail::copy_keys(it, out);
  }
};
template <int N> IterationKeys<N> iteration_keys() {
  return {};
}

/// A call site's inspector: the iteration dataset of its last run and the keys it was built from.
template <int N> class Inspection {
  static_assert(N >= 0 && N <= k_max_inspected_keys,
                "rotor::codegen::Inspection: at most 6 key fields");

public:
  /// The iterations of a loop over `records` (a std::vector of plain records or pairs) keyed by
  /// `fields` (in LoopModel::fields order), each a member pointer (`&Rating::user`) or, for a
  /// nested key, a function of the record (`[](const auto& r) { return r.first.first; }`), or
  /// RecordPosition (the index): iteration i is records[i].
  template <class Record, class Alloc, class... F>
  Dataset<Iteration<N>>& records(const std::vector<Record, Alloc>& records, F... fields) {
    static_assert(sizeof...(F) == N, "rotor::codegen::Inspection: one key reader per key");
    begin_walk();
    for (std::size_t i = 0; i < records.size(); ++i) {
      const std::int64_t keys[N + 1] = {::rotor::detail::key_value(fields, records[i], i)...};
      take(keys, static_cast<std::int64_t>(i));
    }
    return end_walk();
  }

  /// The iterations of an integer-range loop `for (I i = 0; i < count; ++i)`: iteration i has
  /// the keys `keys(i)...` (functions of the index: `i` itself, `user_of[i]`), evaluated here,
  /// before the loop, for every i (in LoopModel::fields order); `at` is i.
  template <class Count, class... K> Dataset<Iteration<N>>& range(Count count, K... keys) {
    static_assert(sizeof...(K) == N, "rotor::codegen::Inspection: one key reader per key");
    static_assert(std::is_integral_v<Count>, "rotor::codegen::Inspection: an integer bound");
    const std::int64_t n = count > 0 ? static_cast<std::int64_t>(count) : 0;
    begin_walk();
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t values[N + 1] = {static_cast<std::int64_t>(keys(i))...};
      take(values, i);
    }
    return end_walk();
  }

  /// The iterations of a ragged nest `for (I i = 0; i < count; ++i) for (J n = 0; n <
  /// row_count(i); ++n)`: one per pair (i, n), in the serial loop's order, with the keys
  /// `keys(i, n)...` (key 0 is i itself; in LoopModel::fields order), evaluated here, before the
  /// loop, for every pair; `k0` is i and `at` is n. A negative row count is no iteration, as in
  /// the serial loop.
  template <class Count, class RowCount, class... K>
  Dataset<Iteration<N>>& ragged(Count count, RowCount row_count, K... keys) {
    static_assert(sizeof...(K) == N && N >= 1,
                  "rotor::codegen::Inspection: one key reader per key, the first the outer index");
    static_assert(std::is_integral_v<Count>, "rotor::codegen::Inspection: an integer bound");
    const std::int64_t rows = count > 0 ? static_cast<std::int64_t>(count) : 0;
    begin_walk();
    for (std::int64_t i = 0; i < rows; ++i) {
      const std::int64_t columns = static_cast<std::int64_t>(row_count(i));
      for (std::int64_t n = 0; n < columns; ++n) {
        const std::int64_t values[N + 1] = {static_cast<std::int64_t>(keys(i, n))...};
        take(values, n);
      }
    }
    return end_walk();
  }

  /// The same nest when every key after the outer index is an element `C[i]->g[n]` of a row
  /// reached through the bound's pointer chain C (`docs[m]->words[n]` for `n < docs[m]->length`):
  /// `rows(i)...` return each key's row pointer `C[i]->g`, read once a row (and only for a row
  /// with a positive count, as the serial loop reads it), and the row's count elements are noted
  /// in `reads` as one range; the iterations and keys are ragged()'s.
  template <class Count, class RowCount, class... Rows>
  Dataset<Iteration<N>>& ragged_rows(ChainReads& reads, Count count, RowCount row_count,
                                     Rows... rows) {
    static_assert(sizeof...(Rows) + 1 == N,
                  "rotor::codegen::Inspection: one row reader per key after the outer index");
    static_assert(std::is_integral_v<Count>, "rotor::codegen::Inspection: an integer bound");
    const std::int64_t outer = count > 0 ? static_cast<std::int64_t>(count) : 0;
    begin_walk();
    begin_signature();
    for (std::int64_t i = 0; i < outer; ++i) {
      const std::int64_t columns = static_cast<std::int64_t>(row_count(i));
      if (columns > 0) {
        take_signed_row(i, columns,
                        reads.note_elements(rows(i), static_cast<std::size_t>(columns))...);
      }
    }
    Dataset<Iteration<N>>& iterations = end_walk();
    end_signature();
    return iterations;
  }

  /// After run_loop over this call site's dataset, when the body wrote the elements of
  /// `records` (its records): every rank's copy of `records` gets the elements the other ranks'
  /// iterations wrote (collective: every rank calls it after the same loop). Nothing moves when
  /// the iterations stayed replicated (a serial plan runs them all on every rank) or there is
  /// one rank.
  template <class Vector> void share_written(Vector& records) {
    using Record = typename Vector::value_type;
    static_assert(::rotor::detail::is_bytewise_record<Record>::value,
                  "rotor: records written by an inspected loop must be trivially copyable (or "
                  "std::pairs of such)");
    ::rotor::detail::Collective& ranks = ::rotor::detail::collective();
    if (ranks.size() == 1 || dataset_.distribution() != Distribution::distributed) {
      return;
    }
    const std::vector<Iteration<N>>& mine = ::rotor::detail::DatasetInternals::records(dataset_);
    constexpr std::size_t bytes = ::rotor::detail::is_bytewise_record<Record>::bytes;
    constexpr std::size_t entry = sizeof(std::int64_t) + bytes;
    std::vector<char> send(mine.size() * entry);
    for (std::size_t i = 0; i < mine.size(); ++i) {
      std::memcpy(send.data() + i * entry, &mine[i].at, sizeof(std::int64_t));
      ::rotor::detail::store_record(send.data() + i * entry + sizeof(std::int64_t),
                                    records[static_cast<std::size_t>(mine[i].at)]);
    }
    std::vector<std::size_t> offsets;
    const std::vector<char> all = ranks.allgatherv(send.data(), send.size(), offsets);
    for (std::size_t off = 0; off + entry <= all.size(); off += entry) {
      std::int64_t at = 0;
      std::memcpy(&at, all.data() + off, sizeof at);
      if (at < 0 || static_cast<std::size_t>(at) >= records.size()) {
        throw std::logic_error("rotor: internal: an inspected iteration past the container's end");
      }
      ::rotor::detail::load_record(all.data() + off + sizeof(std::int64_t),
                                   records[static_cast<std::size_t>(at)]);
    }
  }

  /// How many times the keys differed from the last run's and the dataset was rebuilt (tests).
  std::uint64_t rebuilds() const { return rebuilds_; }

  /// Dataset::histogram of key `key` over the iterations (all ranks), kept until the keys change:
  /// an execution whose keys equal the last one's (every Gibbs sweep over the same corpus)
  /// reuses it. Every rank keeps or recomputes alike (the rebuild follows the keys, which the
  /// ranks read from the same data), so the collective runs on all of them or on none.
  const std::vector<std::int64_t>& histogram(std::int64_t Iteration<N>::*key) {
    const Iteration<N> probe{};
    const auto field = static_cast<std::size_t>(reinterpret_cast<const char*>(&(probe.*key)) -
                                                reinterpret_cast<const char*>(&probe)) /
                       sizeof(std::int64_t);
    Kept& kept = histograms_[field];
    if (!kept.valid || kept.rebuild != rebuilds_) {
      kept.values = dataset_.histogram(key);
      kept.valid = true;
      kept.rebuild = rebuilds_;
    }
    return kept.values;
  }

  /// Of a ragged nest: row i's count, 1 + the largest inner index n of the iterations (i, n)
  /// (all ranks), kept until the keys change, as histogram().
  const std::vector<std::int64_t>& ragged_row_lengths() {
    if (!row_lengths_.valid || row_lengths_.rebuild != rebuilds_) {
      const std::int64_t rows = dataset_.extent(&Iteration<N>::k0);
      ::rotor::detail::check_allocation("the row lengths of a ragged pointer table (int64_t)",
                                        &rows, 1, sizeof(std::int64_t));
      std::vector<std::int64_t> lengths(static_cast<std::size_t>(rows), 0);
      for (const Iteration<N>& it : ::rotor::detail::DatasetInternals::records(dataset_)) {
        std::int64_t& length = lengths[static_cast<std::size_t>(it.k0)];
        length = std::max(length, it.at + 1);
      }
      if (dataset_.distribution() == Distribution::distributed && rows > 0) {
        ::rotor::detail::collective().allreduce_max(lengths.data(), lengths.size());
      }
      row_lengths_ = {true, rebuilds_, std::move(lengths)};
    }
    return row_lengths_.values;
  }

private:
  /// The walk over the iterations: while they equal the last run's, in order, take() only
  /// compares (a sweep over an unchanged corpus writes nothing); from the first difference on it
  /// keeps them in fresh_, and end_walk() rebuilds the dataset. Both hold each iteration as its
  /// N keys and `at`, flat (compared element by element, in registers).
  static constexpr std::size_t k_stride = N + 1;
  void begin_walk() {
    matched_ = 0;
    diverged_ = !built_;
    fresh_.clear();
  }
  void take(const std::int64_t* keys, std::int64_t at) {
    if (!diverged_) {
      if (matches_last(keys, at)) {
        ++matched_;
        return;
      }
      diverge();
    }
    fresh_.insert(fresh_.end(), keys, keys + N);
    fresh_.push_back(at);
  }
  /// Row i's iterations (i, n) for n < columns, key k + 1 being row k's element n.
  template <class... T> void take_row(std::int64_t i, std::int64_t columns, const T*... row) {
    for (std::int64_t n = 0; n < columns; ++n) {
      const std::int64_t values[N + 1] = {i, static_cast<std::int64_t>(row[n])...};
      take(values, n);
    }
  }
  /// ragged_rows' row: while this walk's rows equal those the signature recorded (the walk that
  /// built the dataset), one comparison of the row's bytes stands for the row's iterations;
  /// from the first difference on, the row goes to take_row and into a fresh signature.
  template <class... T>
  void take_signed_row(std::int64_t i, std::int64_t columns, const T*... row) {
    if (signing_.matching) {
      if (signature_row_matches(i, columns, std::index_sequence_for<T...>{}, row...)) {
        matched_ += static_cast<std::size_t>(columns);
        ++signing_.rows;
        return;
      }
      signing_.matching = false;
      truncate_signature();
    }
    record_signature_row(i, columns, std::index_sequence_for<T...>{}, row...);
    take_row(i, columns, row...);
  }
  template <class... T, std::size_t... J>
  bool signature_row_matches(std::int64_t i, std::int64_t columns, std::index_sequence<J...>,
                             const T*... row) {
    const std::size_t at = 2 * signing_.rows;
    if (at + 2 > signature_.shape.size() || signature_.shape[at] != i ||
        signature_.shape[at + 1] != columns) {
      return false;
    }
    const bool same = (... && same_bytes(signature_.bytes[J], signing_.cursor[J], row,
                                         static_cast<std::size_t>(columns) * sizeof(T)));
    if (same) {
      ((signing_.cursor[J] += static_cast<std::size_t>(columns) * sizeof(T)), ...);
    }
    return same;
  }
  static bool same_bytes(const std::vector<unsigned char>& kept, std::size_t from, const void* row,
                         std::size_t bytes) {
    return from + bytes <= kept.size() && std::memcmp(kept.data() + from, row, bytes) == 0;
  }
  template <class... T, std::size_t... J>
  void record_signature_row(std::int64_t i, std::int64_t columns, std::index_sequence<J...>,
                            const T*... row) {
    signature_.shape.push_back(i);
    signature_.shape.push_back(columns);
    (append_bytes(signature_.bytes[J], row, static_cast<std::size_t>(columns) * sizeof(T)), ...);
  }
  static void append_bytes(std::vector<unsigned char>& kept, const void* row, std::size_t bytes) {
    const auto* first = static_cast<const unsigned char*>(row);
    kept.insert(kept.end(), first, first + bytes);
  }
  /// The signature may stand for the dataset's iterations only when it recorded the walk that
  /// built it (a rebuild by this walk records a new one; any other walk leaves it stale).
  void begin_signature() {
    signing_ = {};
    signing_.matching = built_ && signature_.valid && signature_.rebuild == rebuilds_;
    if (!signing_.matching) {
      signature_.shape.clear();
      for (auto& b : signature_.bytes) {
        b.clear();
      }
    }
    signature_.valid = false; // until end_signature: a walk that throws leaves none
  }
  /// Keeps the rows this walk matched, drops the rest (recording goes on from there).
  void truncate_signature() {
    signature_.shape.resize(2 * signing_.rows);
    for (std::size_t j = 0; j < signature_.bytes.size(); ++j) {
      signature_.bytes[j].resize(signing_.cursor[j]);
    }
  }
  void end_signature() {
    if (signing_.matching) {
      truncate_signature(); // fewer rows than last time: end_walk rebuilt from this walk
    }
    signature_.valid = true;
    signature_.rebuild = rebuilds_;
  }

  bool matches_last(const std::int64_t* keys, std::int64_t at) const {
    if ((matched_ + 1) * k_stride > last_.size()) {
      return false;
    }
    const std::int64_t* old = last_.data() + matched_ * k_stride;
    for (int k = 0; k < N; ++k) {
      if (keys[k] != old[k]) {
        return false;
      }
    }
    return old[N] == at;
  }
  void diverge() {
    diverged_ = true;
    fresh_.assign(last_.begin(), last_.begin() + static_cast<std::ptrdiff_t>(matched_ * k_stride));
  }
  /// Keeps the dataset when the walk's keys equal the ones it was built from; rebuilds it
  /// otherwise.
  Dataset<Iteration<N>>& end_walk() {
    if (!diverged_ && matched_ * k_stride == last_.size()) {
      return dataset_;
    }
    if (!diverged_) {
      diverge(); // fewer iterations than last time
    }
    last_.swap(fresh_);
    std::vector<Iteration<N>> iterations(last_.size() / k_stride);
    for (std::size_t i = 0; i < iterations.size(); ++i) {
      ::rotor::detail::set_keys(iterations[i], last_.data() + i * k_stride);
      iterations[i].at = last_[i * k_stride + N];
    }
    dataset_ = Dataset<Iteration<N>>(std::move(iterations));
    built_ = true;
    ++rebuilds_;
    return dataset_;
  }

  std::vector<std::int64_t> fresh_; ///< this walk's iterations, from the first difference on
  std::vector<std::int64_t> last_;  ///< the iterations dataset_ was built from, in order
  std::size_t matched_ = 0;         ///< iterations of this walk equal to last_'s so far
  bool diverged_ = false;           ///< this walk differs from last_ (or nothing is built)
  Dataset<Iteration<N>> dataset_;
  bool built_ = false;
  std::uint64_t rebuilds_ = 0;
  /// A value computed from the keys, and the rebuild it was computed for.
  struct Kept {
    bool valid = false;
    std::uint64_t rebuild = 0;
    std::vector<std::int64_t> values;
  };
  std::array<Kept, N + 1> histograms_{};
  Kept row_lengths_;
  /// ragged_rows' record of the walk that built dataset_: (i, count) of each row with a positive
  /// count, and each key row's elements, byte for byte (key j + 1's rows in bytes[j]).
  struct Signature {
    bool valid = false;
    std::uint64_t rebuild = 0;
    std::vector<std::int64_t> shape;
    std::array<std::vector<unsigned char>, (N > 1 ? N - 1 : 1)> bytes;
  };
  Signature signature_;
  /// The walk against the signature: rows matched so far and where each key's bytes continue.
  struct Signing {
    bool matching = false;
    std::size_t rows = 0;
    std::array<std::size_t, (N > 1 ? N - 1 : 1)> cursor{};
  };
  Signing signing_;
};

} // namespace rotor::codegen
