#pragma once
/// \file
/// The definition of rotor::codegen::run_loop (declared in Codegen.h): adapts the dataset or
/// index space, the bound arrays, the reductions and the body to the type-erased engine
/// (detail/Engine.h). Included by rotor/rotor.h.

#include "rotor/distarray/Dataset.h"
#include "rotor/distarray/DistArray.h"
#include "rotor/distarray/IndexSpace.h"
#include "rotor/distarray/detail/DatasetInternals.h"
#include "rotor/runtime/Accumulator.h"
#include "rotor/runtime/Buffered.h"
#include "rotor/runtime/Codegen.h"
#include "rotor/runtime/detail/Checkpoint.h"
#include "rotor/runtime/detail/Engine.h"
#include "rotor/runtime/detail/MemoryCheck.h"

#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace rotor::detail {

// -- reductions -------------------------------------------------------------------------------

template <class T> struct ReductionTraits {
  static_assert(std::is_arithmetic_v<T>,
                "rotor: a reduction must be an arithmetic scalar or a rotor::Accumulator");
  static T identity() { return T(0); }
  static void combine(T& into, const T& part) { into += part; }
};
template <class T, class Op> struct ReductionTraits<Accumulator<T, Op>> {
  static Accumulator<T, Op> identity() { return Accumulator<T, Op>(); }
  static void combine(Accumulator<T, Op>& into, const Accumulator<T, Op>& part) {
    into.combine(part);
  }
};

// -- spaces -----------------------------------------------------------------------------------

template <class Record, class Keys> class DatasetAccess final : public SpaceAccess {
public:
  DatasetAccess(Dataset<Record>& d, const Keys& keys) : d_(d), keys_(keys) {}
  bool is_index_space() const override { return false; }
  int key_count() const override { return Keys::size; }
  const void* identity() const override { return &d_; }
  std::size_t local_count() const override { return records().size(); }
  bool distributed() const override { return d_.distribution() == Distribution::distributed; }
  void keys(std::size_t i, std::int64_t* out) const override { keys_.extract(records()[i], out); }
  bool keys_in_range(std::size_t begin, std::size_t end, int fields, const int* field_keys,
                     const std::int64_t* lo, const std::int64_t* hi) const override {
    const Record* recs = records().data();
    std::int64_t k[Keys::size + 1];
    for (std::size_t i = begin; i < end; ++i) {
      keys_.extract(recs[i], k);
      for (int j = 0; j < fields; ++j) {
        if (k[field_keys[j]] < lo[j] || k[field_keys[j]] >= hi[j]) {
          return false;
        }
      }
    }
    return true;
  }
  std::size_t record_bytes() const override { return sizeof(Record); }
  char* record_data() override { return reinterpret_cast<char*>(records().data()); }
  std::vector<std::uint64_t>& ids() override { return DatasetInternals::ids(d_); }
  void ensure_ids() override {
    auto& ids = DatasetInternals::ids(d_);
    const std::size_t n = records().size();
    if (ids.size() == n) {
      return;
    }
    std::uint64_t first = 0;
    if (distributed()) {
      std::uint64_t mine = n;
      std::vector<std::size_t> offs;
      std::vector<char> all = allgather_bytes(&mine, sizeof mine, offs);
      for (int r = 0; r < session_rank(); ++r) {
        std::uint64_t v = 0;
        std::memcpy(&v, all.data() + offs[r], sizeof v);
        first += v;
      }
    }
    ids.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      ids[i] = first + i;
    }
  }
  void replace(std::vector<char> bytes, std::vector<std::uint64_t> ids, bool dist) override {
    std::vector<Record> recs(bytes.size() / sizeof(Record));
    if (!recs.empty()) {
      std::memcpy(static_cast<void*>(recs.data()), bytes.data(), recs.size() * sizeof(Record));
    }
    DatasetInternals::replace(d_, std::move(recs), std::move(ids),
                              dist ? Distribution::distributed : Distribution::replicated);
  }

private:
  std::vector<Record>& records() const { return DatasetInternals::records(d_); }
  Dataset<Record>& d_;
  Keys keys_;
};

template <int N> class IndexAccess final : public SpaceAccess {
public:
  explicit IndexAccess(const IndexSpace<N>& s) : s_(s) {}
  bool is_index_space() const override { return true; }
  int key_count() const override { return N; }
  const void* identity() const override { return &s_; }
  std::vector<std::int64_t> extents() const override {
    return std::vector<std::int64_t>(s_.extents().begin(), s_.extents().end());
  }
  std::vector<std::uint64_t>& ids() override { return ids_; }

private:
  const IndexSpace<N>& s_;
  std::vector<std::uint64_t> ids_;
};

// -- the per-slot state and the body --------------------------------------------------------

template <class T> struct IsDistArray : std::false_type {};
template <class T, int N> struct IsDistArray<DistArray<T, N>> : std::true_type {};
template <class T, int N> struct IsDistArray<const DistArray<T, N>> : std::true_type {};
template <class A> struct BufferedMergeOf;
template <class T, int N> struct BufferedMergeOf<DistArray<T, N>> {
  using type = BufferedArrayMerge<T, N>;
};
template <class T> struct IsDataset : std::false_type {};
template <class R> struct IsDataset<Dataset<R>> : std::true_type {};
template <class T> struct IsIndexSpace : std::false_type {};
template <int N> struct IsIndexSpace<IndexSpace<N>> : std::true_type {
  static constexpr int dims = N;
};

/// Combines the slots' partials in slot order, then the ranks' in rank order, into `target`.
template <class Reduction>
void combine_reduction(Reduction& target, const std::vector<Reduction>& slot_partials,
                       bool across_ranks) {
  static_assert(std::is_trivially_copyable_v<Reduction>,
                "rotor: a reduction must be trivially copyable");
  Reduction total = ReductionTraits<Reduction>::identity();
  for (const Reduction& p : slot_partials) {
    ReductionTraits<Reduction>::combine(total, p);
  }
  if (across_ranks) {
    std::vector<std::size_t> offs;
    std::vector<char> all = allgather_bytes(&total, sizeof total, offs);
    total = ReductionTraits<Reduction>::identity();
    for (int r = 0; r < session_ranks(); ++r) {
      Reduction part = ReductionTraits<Reduction>::identity();
      std::memcpy(static_cast<void*>(&part), all.data() + offs[r], sizeof part);
      ReductionTraits<Reduction>::combine(total, part);
    }
  }
  ReductionTraits<Reduction>::combine(target, total);
}

/// Per worker slot: the views of the arrays (the arrays themselves, or private copies of the
/// buffered ones) and the reduction partials; calls the body.
template <class Body, class ArraysTuple, class ReductionsTuple> class SlotState;

template <class Body, class... Arrays, class... Reductions>
class SlotState<Body, std::tuple<Arrays&...>, std::tuple<Reductions&...>> {
public:
  struct alignas(64) Partials {
    std::tuple<Reductions...> values{ReductionTraits<Reductions>::identity()...};
  };

  SlotState(Body& body, std::tuple<Arrays&...> arrays, int slots, const std::vector<bool>& buffered)
      : body_(body), arrays_(arrays), copies_(static_cast<std::size_t>(slots)),
        partials_(static_cast<std::size_t>(slots)) {
    for (int s = 0; s < slots; ++s) {
      make_copies(s, buffered, std::index_sequence_for<Arrays...>{});
      views_.push_back(views_for(s, std::index_sequence_for<Arrays...>{}));
    }
  }

  /// Calls the body on elements [0, count) produced by `element(k)`; false: the body said stop.
  template <class ElementFn> bool run(int slot, std::size_t count, ElementFn&& element) {
    FlushCoordinator* flusher = flusher_ && flusher_->flushing() ? flusher_.get() : nullptr;
    if (flusher) {
      try {
        return run_records(slot, count, element, flusher);
      } catch (...) {
        flusher->fail();
        throw;
      }
    }
    return run_records(slot, count, element, nullptr);
  }

  /// Buffered arrays: the coordinator of this execution's flushes (run_loop, before execute).
  void start_buffered(const BufferedPlan& plan) {
    std::vector<BufferedMerge*> merges;
    add_merges(merges, std::index_sequence_for<Arrays...>{});
    if (!merges.empty()) {
      flusher_ = std::make_unique<FlushCoordinator>(
          static_cast<int>(copies_.size()), plan.flush_every, plan.staleness, plan.across, merges);
    }
  }
  /// The engine finished this slot's cell.
  void cell_finished(int slot) {
    if (flusher_) {
      flusher_->retire(slot);
    }
  }

  /// After the loop: merges buffered arrays and combines reductions into the originals.
  void finish(std::tuple<Reductions&...> reductions, bool across_ranks) {
    if (flusher_) {
      flusher_->finish();
    }
    combine_all(reductions, across_ranks, std::index_sequence_for<Reductions...>{});
  }

private:
  template <class ElementFn>
  bool run_records(int slot, std::size_t count, ElementFn& element, FlushCoordinator* flusher) {
    auto& views = views_[static_cast<std::size_t>(slot)];
    auto& parts = partials_[static_cast<std::size_t>(slot)].values;
    return std::apply(
        [&](auto&... a) {
          return std::apply(
              [&](auto&... r) {
                for (std::size_t k = 0; k < count; ++k) {
                  decltype(auto) e = element(k);
                  using Result = decltype(body_(e, a..., r...));
                  if constexpr (std::is_same_v<Result, bool>) {
                    if (!body_(e, a..., r...)) {
                      return false;
                    }
                  } else {
                    body_(e, a..., r...);
                  }
                  if (flusher) {
                    flusher->after_record(slot);
                  }
                }
                return true;
              },
              parts);
        },
        views);
  }

  template <std::size_t... I>
  void make_copies(int s, const std::vector<bool>& buffered, std::index_sequence<I...>) {
    (void)s, (void)buffered;
    ((std::get<I>(copies_[static_cast<std::size_t>(s)]) =
          buffered[I] ? std::make_unique<Arrays>(std::get<I>(arrays_)) : nullptr),
     ...);
  }
  template <std::size_t... I> std::tuple<Arrays&...> views_for(int s, std::index_sequence<I...>) {
    auto& c = copies_[static_cast<std::size_t>(s)];
    return std::tuple<Arrays&...>((std::get<I>(c) ? *std::get<I>(c) : std::get<I>(arrays_))...);
  }
  template <std::size_t I> void add_merge(std::vector<BufferedMerge*>& merges) {
    using A = std::remove_const_t<std::tuple_element_t<I, std::tuple<Arrays...>>>;
    std::vector<A*> copies;
    for (auto& c : copies_) {
      if (std::get<I>(c)) {
        copies.push_back(const_cast<A*>(std::get<I>(c).get()));
      }
    }
    if (!copies.empty()) {
      merges_.push_back(std::make_unique<typename BufferedMergeOf<A>::type>(
          const_cast<A&>(std::get<I>(arrays_)), std::move(copies)));
      merges.push_back(merges_.back().get());
    }
  }
  template <std::size_t... I>
  void add_merges(std::vector<BufferedMerge*>& merges, std::index_sequence<I...>) {
    (void)merges;
    (add_merge<I>(merges), ...);
  }
  template <std::size_t J>
  void combine_one(std::tuple<Reductions&...>& reductions, bool across_ranks) {
    using R = std::tuple_element_t<J, std::tuple<Reductions...>>;
    std::vector<R> parts;
    for (auto& p : partials_) {
      parts.push_back(std::get<J>(p.values));
    }
    combine_reduction(std::get<J>(reductions), parts, across_ranks);
  }
  template <std::size_t... J>
  void combine_all(std::tuple<Reductions&...>& reductions, bool across_ranks,
                   std::index_sequence<J...>) {
    (void)reductions, (void)across_ranks;
    (combine_one<J>(reductions, across_ranks), ...);
  }

  Body& body_;
  std::tuple<Arrays&...> arrays_;
  std::vector<std::tuple<std::unique_ptr<Arrays>...>> copies_;
  std::vector<std::tuple<Arrays&...>> views_;
  std::vector<Partials> partials_;
  std::vector<std::unique_ptr<BufferedMerge>> merges_;
  std::unique_ptr<FlushCoordinator> flusher_;
};

template <class Record, class State> class DatasetRunner final : public CellRunner {
public:
  DatasetRunner(Dataset<Record>& d, State& st) : d_(d), st_(st) {}
  bool run_records(int slot, std::size_t begin, std::size_t end) override {
    Record* recs = DatasetInternals::records(d_).data() + begin;
    return st_.run(slot, end - begin, [recs](std::size_t k) -> Record& { return recs[k]; });
  }
  bool run_box(int, const std::int64_t*, const std::int64_t*) override {
    throw std::logic_error("rotor: internal: run_box on a dataset loop");
  }
  bool run_list(int, const std::size_t*, std::size_t) override {
    throw std::logic_error("rotor: internal: run_list on a dataset loop");
  }
  void cell_finished(int slot) override { st_.cell_finished(slot); }

private:
  Dataset<Record>& d_;
  State& st_;
};

template <int N, class State> class IndexRunner final : public CellRunner {
public:
  IndexRunner(const IndexSpace<N>& s, State& st) : s_(s), st_(st) {}
  bool run_records(int, std::size_t, std::size_t) override {
    throw std::logic_error("rotor: internal: run_records on an index-space loop");
  }
  bool run_box(int slot, const std::int64_t* lo, const std::int64_t* hi) override {
    std::size_t count = 1;
    for (int d = 0; d < N; ++d) {
      if (lo[d] >= hi[d]) {
        return true;
      }
      count *= static_cast<std::size_t>(hi[d] - lo[d]);
    }
    Index<N> p;
    for (int d = 0; d < N; ++d) {
      p.v[d] = lo[d];
    }
    bool first = true;
    return st_.run(slot, count, [&](std::size_t) -> const Index<N>& {
      if (!first) {
        for (int d = N - 1; d >= 0; --d) {
          if (++p.v[d] < hi[d]) {
            break;
          }
          p.v[d] = lo[d];
        }
      }
      first = false;
      return p;
    });
  }
  void cell_finished(int slot) override { st_.cell_finished(slot); }
  bool run_list(int slot, const std::size_t* indices, std::size_t count) override {
    Index<N> p;
    return st_.run(slot, count, [&](std::size_t k) -> const Index<N>& {
      std::size_t lin = indices[k];
      for (int d = N - 1; d >= 0; --d) {
        const auto e = static_cast<std::size_t>(s_.extent(d));
        p.v[d] = static_cast<std::int64_t>(lin % e);
        lin /= e;
      }
      return p;
    });
  }

private:
  const IndexSpace<N>& s_;
  State& st_;
};

/// A bound array as bytes. A `const DistArray&` binds too (read-only in the body; the runtime
/// writes only arrays the spec marks written).
template <class T, int N> ArrayBinding bind_array(const DistArray<T, N>& a, const char* name) {
  ArrayBinding b;
  b.identity = &a;
  b.data = reinterpret_cast<char*>(const_cast<T*>(a.data()));
  b.elem_bytes = sizeof(T);
  b.element_type = static_cast<int>(element_type_of<T>());
  b.shape.assign(a.shape().begin(), a.shape().end());
  b.name = name ? name : "";
  return b;
}

template <class... Arrays> bool arrays_alias(const std::tuple<Arrays&...>& arrays) {
  std::vector<const void*> addresses;
  std::apply([&](auto&... a) { (addresses.push_back(&a), ...); }, arrays);
  for (std::size_t i = 0; i < addresses.size(); ++i) {
    for (std::size_t j = i + 1; j < addresses.size(); ++j) {
      if (addresses[i] == addresses[j]) {
        return true;
      }
    }
  }
  return false;
}

template <class... Arrays>
void bind_arrays(const codegen::LoopSpec& spec, std::tuple<Arrays&...> arrays,
                 const std::vector<bool>& buffered, std::vector<ArrayBinding>& bindings,
                 std::vector<int>& spec_index) {
  std::size_t i = 0;
  std::apply(
      [&](auto&... a) {
        auto one = [&](auto& array) {
          if (!buffered[i]) {
            bindings.push_back(bind_array(array, spec.arrays[i].name));
            spec_index.push_back(static_cast<int>(i));
          }
          ++i;
        };
        (one(a), ...);
        (void)one;
      },
      arrays);
}

} // namespace rotor::detail

namespace rotor::codegen {

template <class Space, class Keys, class... Arrays, class... Reductions, class Body>
void run_loop(const LoopSpec& spec, Space& space, const Keys& keys, std::tuple<Arrays&...> arrays,
              std::tuple<Reductions&...> reductions, Body&& body) {
  using namespace ::rotor::detail;
  using S = std::remove_const_t<Space>;
  static_assert(IsDataset<S>::value || IsIndexSpace<S>::value,
                "rotor::codegen::run_loop: the loop must range over a rotor::Dataset or a "
                "rotor::IndexSpace");
  static_assert((IsDistArray<Arrays>::value && ...),
                "rotor::codegen::run_loop: every bound array must be a rotor::DistArray");
  constexpr std::size_t n_arrays = sizeof...(Arrays);
  if (spec.arrays.size() != n_arrays) {
    throw std::invalid_argument(std::string("rotor: the loop at ") + spec.file + ":" +
                                std::to_string(spec.line) + ": the spec lists " +
                                std::to_string(spec.arrays.size()) + " arrays but " +
                                std::to_string(n_arrays) + " are bound");
  }
  using State =
      SlotState<std::remove_reference_t<Body>, std::tuple<Arrays&...>, std::tuple<Reductions&...>>;
  auto go = [&](SpaceAccess& access, auto make_runner) {
    std::vector<ArrayBinding> checkpointed; // --rotor-checkpoint: every bound array
    bool skip = false;
    if (checkpoint_enabled()) {
      std::vector<int> unused;
      bind_arrays(spec, arrays, std::vector<bool>(n_arrays, false), checkpointed, unused);
      skip = checkpoint_before_execution(spec, access, checkpointed);
    }
    // The reduction variables' bytes after the loop: logged in checkpoints, replayed when a
    // resumed run skips the loop (a sum the program uses later keeps its value).
    auto reduction_bytes = [&](bool to_variables, std::vector<char>& bytes) {
      std::size_t at = 0;
      auto one = [&](auto& r) {
        using R = std::remove_reference_t<decltype(r)>;
        static_assert(std::is_trivially_copyable_v<R>,
                      "rotor: reductions must be trivially copyable");
        if (to_variables) {
          if (at + sizeof(R) <= bytes.size()) {
            std::memcpy(static_cast<void*>(&r), bytes.data() + at, sizeof(R));
          }
        } else {
          bytes.resize(at + sizeof(R));
          std::memcpy(bytes.data() + at, static_cast<const void*>(&r), sizeof(R));
        }
        at += sizeof(R);
      };
      std::apply([&](auto&... r) { (one(r), ...); }, reductions);
      (void)one;
    };
    if (skip) {
      std::vector<char> bytes;
      reduction_bytes(false, bytes); // the expected size
      checkpoint_after_execution(spec, access, checkpointed, true, bytes);
      reduction_bytes(true, bytes);
      return;
    }
    const ExecutionInfo info = plan_execution(spec, access, arrays_alias(arrays));
    const bool serial = info.mode == "serial";
    std::vector<bool> buffered(n_arrays);
    for (std::size_t i = 0; i < n_arrays; ++i) {
      buffered[i] = !serial && spec.arrays[i].role == Role::buffered;
    }
    {
      std::size_t bound_bytes = 0, buffered_bytes = 0, i = 0;
      auto count = [&](const auto& a) {
        const std::size_t bytes = static_cast<std::size_t>(a.size()) * sizeof(a.data()[0]);
        (buffered[i++] ? buffered_bytes : bound_bytes) += bytes;
      };
      std::apply([&](auto&... a) { (count(a), ...); }, arrays);
      check_loop_memory(spec, access, bound_bytes + buffered_bytes, buffered_bytes, info.slots);
    }
    State state(body, arrays, info.slots, buffered);
    state.start_buffered(plan_buffered(spec, info));
    auto runner = make_runner(state);
    std::vector<ArrayBinding> bindings;
    std::vector<int> spec_index;
    bind_arrays(spec, arrays, buffered, bindings, spec_index);
    execute(spec, access, bindings, spec_index, {}, runner, info);
    state.finish(reductions, !info.redundant && session_ranks() > 1);
    loop_finished();
    if (checkpoint_enabled()) {
      std::vector<char> bytes;
      reduction_bytes(false, bytes);
      checkpoint_after_execution(spec, access, checkpointed, false, bytes);
    }
  };
  if constexpr (IsDataset<S>::value) {
    using Record = typename S::value_type;
    DatasetAccess<Record, Keys> access(space, keys);
    go(access, [&](State& st) { return DatasetRunner<Record, State>(space, st); });
  } else {
    constexpr int dims = IsIndexSpace<S>::dims;
    IndexAccess<dims> access(space);
    go(access, [&](State& st) { return IndexRunner<dims, State>(space, st); });
  }
}

} // namespace rotor::codegen
