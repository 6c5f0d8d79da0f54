#pragma once
/// \file
/// The definition of rotor::codegen::run_loop (declared in Codegen.h): adapts the dataset or
/// index space, the bound arrays, the reductions and the body to the type-erased engine
/// (detail/Engine.h). Included by rotor/rotor.h.

#include "rotor/distarray/Dataset.h"
#include "rotor/distarray/DistArray.h"
#include "rotor/distarray/IndexSpace.h"
#include "rotor/distarray/detail/Collective.h"
#include "rotor/distarray/detail/DatasetInternals.h"
#include "rotor/runtime/Accumulator.h"
#include "rotor/runtime/Buffered.h"
#include "rotor/runtime/Codegen.h"
#include "rotor/runtime/detail/BufferedLoop.h"
#include "rotor/runtime/detail/Engine.h"
#include "rotor/runtime/detail/LoopFrame.h"
#include "rotor/runtime/detail/Watchdog.h"
#include "rotor/runtime/detail/WorkerSlot.h"

#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace rotor::detail {

// -- reductions -------------------------------------------------------------------------------

/// --rotor-validate's relative tolerance for a reduction of arithmetic type T (ReductionOps).
template <class T> constexpr double reduction_tolerance() {
  if constexpr (std::is_floating_point_v<T>) {
    return sizeof(T) <= sizeof(float) ? 1e-3 : 1e-9;
  } else {
    return 0;
  }
}

template <class T> struct ReductionTraits {
  static_assert(std::is_arithmetic_v<T>,
                "rotor: a reduction must be an arithmetic scalar or a rotor::Accumulator");
  static T identity() { return T(0); }
  static void combine(T& into, const T& part) { into += part; }
  static double value(const T& v) { return static_cast<double>(v); }
  static constexpr double tolerance = reduction_tolerance<T>();
};
template <class T, class Op> struct ReductionTraits<Accumulator<T, Op>> {
  static Accumulator<T, Op> identity() { return Accumulator<T, Op>(); }
  static void combine(Accumulator<T, Op>& into, const Accumulator<T, Op>& part) {
    into.combine(part);
  }
  static double value(const Accumulator<T, Op>& v) { return static_cast<double>(v.value()); }
  static constexpr double tolerance = reduction_tolerance<T>();
};

// -- spaces -----------------------------------------------------------------------------------

/// True when Keys reads record members (codegen::KeyList: `members`, a tuple of pointers).
template <class Keys, class = void> struct KeysAreMembers : std::false_type {};
template <class Keys>
struct KeysAreMembers<Keys, std::void_t<decltype(std::declval<const Keys&>().members)>>
    : std::true_type {};

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
  void key_block(int key, std::size_t begin, std::size_t end, std::int64_t* out) const override {
    const Record* recs = records().data();
    std::int64_t k[Keys::size + 1];
    for (std::size_t i = begin; i < end; ++i) {
      keys_.extract(recs[i], k);
      out[i - begin] = k[key];
    }
  }
  const std::vector<std::uint32_t>* loaded_key_counts(int key) const override {
    if constexpr (KeysAreMembers<Keys>::value) {
      return DatasetInternals::loaded_key_counts(d_, key_offset(key));
    } else {
      static_cast<void>(key);
      return nullptr; // keys computed otherwise (an inspector's iterations): never loaded
    }
  }
  void drop_loaded_key_counts() override { DatasetInternals::drop_loaded_key_counts(d_); }
  std::size_t record_bytes() const override { return sizeof(Record); }
  char* record_data() override { return reinterpret_cast<char*>(records().data()); }
  std::vector<std::uint64_t>& ids() override { return DatasetInternals::ids(d_); }
  std::vector<std::uint32_t>* origin() override { return &DatasetInternals::origin(d_); }
  bool has_origin() const override { return DatasetInternals::has_origin(d_); }
  void set_origin_codes(std::vector<std::uint16_t> codes) override {
    DatasetInternals::set_origin_codes(d_, std::move(codes));
  }
  std::uint64_t* version() override { return &DatasetInternals::version(d_); }
  std::shared_ptr<void>& layouts() override { return DatasetInternals::layouts(d_); }
  void resize_local(std::size_t n, bool dist) override {
    records().resize(n);
    DatasetInternals::set_distribution(d_,
                                       dist ? Distribution::distributed : Distribution::replicated);
  }
  void reserve_local(std::size_t n) override { reserve_releasing(records(), n); }
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
      Collective& ranks = collective();
      std::vector<char> all = ranks.allgatherv(&mine, sizeof mine, offs);
      for (int r = 0; r < ranks.rank(); ++r) {
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
  /// Byte offset in Record of the member key `key` reads (KeysAreMembers<Keys> only).
  std::uint32_t key_offset(int key) const {
    const Record probe{};
    const char* base = reinterpret_cast<const char*>(&probe);
    std::uint32_t offset = 0;
    int at = 0;
    std::apply(
        [&](auto... m) {
          ((at++ == key ? offset = static_cast<std::uint32_t>(
                              reinterpret_cast<const char*>(&(probe.*m)) - base)
                        : offset),
           ...);
        },
        keys_.members);
    return offset;
  }
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

// -- the per-type tables and the body's record loop -----------------------------------------

template <class T> struct IsDistArray : std::false_type {};
template <class T, int N> struct IsDistArray<DistArray<T, N>> : std::true_type {};
template <class T, int N> struct IsDistArray<const DistArray<T, N>> : std::true_type {};
template <class T> struct IsDataset : std::false_type {};
template <class R> struct IsDataset<Dataset<R>> : std::true_type {};
template <class T> struct IsIndexSpace : std::false_type {};
template <int N> struct IsIndexSpace<IndexSpace<N>> : std::true_type {
  static constexpr int dims = N;
};

/// The object the body gets for array position K: a SparseBuffer where rotor-cc marked the
/// position sparse-capable (used when LoopFrame::sparse()), else the DistArray.
template <std::size_t K, class A, class Capable> struct SlotObject { using type = A; };
template <std::size_t K, class T, int N, std::size_t... I>
struct SlotObject<K, DistArray<T, N>, codegen::SparseCapable<I...>> {
  using type = std::conditional_t<((K == I) || ...), SparseBuffer<T, N>, DistArray<T, N>>;
};

/// One table per DistArray type (not per loop).
template <class A> struct ArrayOpsFor {
  using Sparse = SparseBuffer<typename A::value_type, A::rank>;
  static void* copy(const void* a) { return new A(*static_cast<const A*>(a)); }
  static void destroy(void* a) { delete static_cast<A*>(a); }
  static char* data(void* a) { return reinterpret_cast<char*>(static_cast<A*>(a)->data()); }
  static BufferedMerge* make_merge(void* a, void* const* copies, std::size_t count, bool sparse) {
    return make_buffered_merge(*static_cast<A*>(a), copies, count, sparse);
  }
  static void* make_sparse(const void* a) { return new Sparse(*static_cast<const A*>(a)); }
  static void destroy_sparse(void* b) { delete static_cast<Sparse*>(b); }
  static constexpr ArrayOps ops{&copy, &destroy, &data, &make_merge, &make_sparse, &destroy_sparse};
};

/// One table per reduction type (not per loop).
template <class R> struct ReductionOpsFor {
  static_assert(std::is_trivially_copyable_v<R>, "rotor: a reduction must be trivially copyable");
  static void identity(void* out) { new (out) R(ReductionTraits<R>::identity()); }
  static void combine(void* into, const void* part) {
    ReductionTraits<R>::combine(*static_cast<R*>(into), *static_cast<const R*>(part));
  }
  static double value(const void* r) {
    return ReductionTraits<R>::value(*static_cast<const R*>(r));
  }
  static constexpr ReductionOps ops{sizeof(R), &identity, &combine, &value,
                                    ReductionTraits<R>::tolerance};
};

template <class T, int N> void add_array(LoopFrame& frame, const DistArray<T, N>& a) {
  frame.add_array(&a, a.data(), sizeof(T), element_type_of<T>(), a.shape().data(), N,
                  &ArrayOpsFor<DistArray<T, N>>::ops);
}

template <class R> void add_reduction(LoopFrame& frame, R& r) {
  frame.add_reduction(&r, &ReductionOpsFor<R>::ops);
}

/// The slot's reduction partials `R...` (at `slots`) copied into locals for one record loop and
/// written back when it ends (returns or throws): the body adds to a value the compiler can keep
/// in a register, where the slot's memory would be reloaded after every vector store (GCC's
/// vector types may alias anything).
template <class... R> class LocalPartials {
public:
  explicit LocalPartials(void* const* slots)
      : slots_(slots), values_(load(std::index_sequence_for<R...>{})) {}
  ~LocalPartials() { store(std::index_sequence_for<R...>{}); }
  LocalPartials(const LocalPartials&) = delete;
  LocalPartials& operator=(const LocalPartials&) = delete;
  std::tuple<R...>& values() { return values_; }

private:
  template <std::size_t... J> std::tuple<R...> load(std::index_sequence<J...>) const {
    return std::tuple<R...>(*static_cast<const R*>(slots_[J])...);
  }
  template <std::size_t... J> void store(std::index_sequence<J...>) {
    ((*static_cast<R*>(slots_[J]) = std::get<J>(values_)), ...);
  }
  void* const* slots_;
  std::tuple<R...> values_;
};

/// What the record loop hands the body of a loop the frontend planned parallel
/// (LoopFrame::array_views) for a bound object: a DistArray as a local non-owning view of the
/// same memory (DistArray::adopt), so that its data pointer and shape stay in registers across
/// records (stores through Eigen's vector types may alias any object the compiler cannot see
/// whole, such as the runtime's DistArray the body would otherwise get by reference, and every
/// record would reload them); anything else (worker buffers of other types, reductions) as
/// itself. A loop planned serial, and every loop with --rotor-check-access (the access guard
/// knows arrays by address), gets the arrays themselves.
template <class T> T& local_view(T& object) {
  return object;
}
#if !defined(ROTOR_CHECK_ACCESS)
template <class T, int N> DistArray<T, N> local_view(DistArray<T, N>& array) {
  return DistArray<T, N>::adopt(array.data(), array.shape());
}
#endif

/// The body the record loop calls: a local copy where copying cannot change what it does (a
/// trivially copyable closure whose call operator is const, as rotor-cc's `[&]` bodies are), so
/// that its captured pointers stay in registers; else the body itself.
template <class Body, class Element, class... Objects>
constexpr bool
    copy_body_v = std::is_trivially_copyable_v<Body> &&
                  sizeof(Body) <= 256 && std::is_invocable_v<const Body&, Element, Objects&...>;

/// The only per-loop code: calls the body on `count` elements with the slot's objects, cast back
/// to their types once per cell. The record loop is compiled as one function with the body
/// inlined (`flatten`), the reductions in locals (LocalPartials) and the flush check only where
/// buffered arrays flush mid-loop: closer to the serial loop's cost, not equal to it (captured
/// scalars are still reloaded through the closure; docs/performance.md, issue 19).
/// With sparse worker buffers (`Capable` non-empty and LoopFrame::sparse()) the marked arrays are
/// cast to SparseBuffer: the body is instantiated once per kind of buffer.
template <class Body, class ArraysTuple, class ReductionsTuple, class Capable> struct BodyLoop;
template <class Body, class... Arrays, class... Reductions, class Capable>
struct BodyLoop<Body, std::tuple<Arrays&...>, std::tuple<Reductions&...>, Capable> {
  template <class ElementFn>
  static bool run(Body& body, const LoopFrame& frame, int slot, std::size_t count,
                  ElementFn&& element) {
    FlushTrigger* flusher = frame.flusher();
    if (flusher == nullptr) {
      return with_objects(body, frame, slot, nullptr, count, element);
    }
    try {
      return with_objects(body, frame, slot, flusher, count, element);
    } catch (...) {
      flusher->fail(); // nobody waits for this worker's flushes any more
      throw;
    }
  }

private:
  template <class ElementFn>
  static bool with_objects(Body& body, const LoopFrame& frame, int slot, FlushTrigger* flusher,
                           std::size_t count, ElementFn& element) {
    return cast_objects(body, frame, frame.arrays(slot), frame.reductions(slot), slot, flusher,
                        count, element, std::index_sequence_for<Arrays...>{});
  }
  template <class ElementFn, std::size_t... I>
  static bool cast_objects(Body& body, const LoopFrame& frame, void* const* a, void* const* r,
                           int slot, FlushTrigger* flusher, std::size_t count, ElementFn& element,
                           std::index_sequence<I...>) {
    (void)a, (void)frame;
    if constexpr (!std::is_same_v<Capable, codegen::SparseCapable<>>) {
      if (frame.sparse()) {
        if (frame.array_views()) {
          return with_partials<true>(
              body, slot, flusher, count, element, r,
              *static_cast<typename SlotObject<I, Arrays, Capable>::type*>(a[I])...);
        }
        return with_partials<false>(
            body, slot, flusher, count, element, r,
            *static_cast<typename SlotObject<I, Arrays, Capable>::type*>(a[I])...);
      }
    }
    if (frame.array_views()) {
      return with_partials<true>(body, slot, flusher, count, element, r,
                                 *static_cast<Arrays*>(a[I])...);
    }
    return with_partials<false>(body, slot, flusher, count, element, r,
                                *static_cast<Arrays*>(a[I])...);
  }
  /// Everything the record loop calls is inlined here (flatten): the body, the element access.
  /// One function with views and one without (local_view), so that each is compiled on its own.
  template <bool Views, class ElementFn, class... ArrayObjects>
  __attribute__((flatten)) static bool with_partials(Body& body, int slot, FlushTrigger* flusher,
                                                     std::size_t count, const ElementFn& element,
                                                     void* const* r, ArrayObjects&... arrays) {
    LocalPartials<std::remove_reference_t<Reductions>...> partials(r);
    return std::apply(
        [&](auto&... reductions) {
          using Element = decltype(element(std::size_t{0}));
          if constexpr (copy_body_v<Body, Element, ArrayObjects..., decltype(reductions)...>) {
            const Body local = body;
            return loop<Views>(local, slot, flusher, count, element, arrays..., reductions...);
          } else {
            return loop<Views>(body, slot, flusher, count, element, arrays..., reductions...);
          }
        },
        partials.values());
  }
  template <bool Views, class B, class ElementFn, class... Objects>
  static bool loop(B& body, int slot, FlushTrigger* flusher, std::size_t count,
                   const ElementFn& element, Objects&... objects) {
    if (flusher == nullptr) {
      return records<false>(body, slot, flusher, count, element, given<Views>(objects)...);
    }
    return records<true>(body, slot, flusher, count, element, given<Views>(objects)...);
  }
  /// The object the body gets: its local view (Views) or the object itself.
  template <bool Views, class T> static decltype(auto) given(T& object) {
    if constexpr (Views) {
      return local_view(object);
    } else {
      return (object);
    }
  }
  template <bool Flushes, class B, class ElementFn, class... Objects>
  static bool records(B& body, int slot, FlushTrigger* flusher, std::size_t count,
                      const ElementFn& element, Objects&&... objects) {
    WorkerBeat beat(slot);         // progress for the watchdog (--rotor-timeout)
    WorkerSlotScope in_slot(slot); // per-worker copies (Private.h)
    const ElementFn at = element;  // a local: its captures stay in registers
    for (std::size_t k = 0; k < count; ++k) {
      decltype(auto) e = at(k);
      using Result = decltype(body(e, objects...));
      if constexpr (std::is_same_v<Result, bool>) {
        if (!body(e, objects...)) {
          return false;
        }
      } else {
        body(e, objects...);
      }
      beat.tick();
      if constexpr (Flushes) {
        flusher->after_record(slot);
      }
    }
    return true;
  }
};

} // namespace rotor::detail

#if defined(__CUDACC__)
#include "rotor/runtime/detail/CudaRunner.cuh" // a device(gpu) loop's body on a GPU
#endif

namespace rotor::detail {

template <class Record, class Loop, class Body>
class DatasetRunner final : public DatasetRunnerBase {
public:
  DatasetRunner(Dataset<Record>& d, Body& body, const LoopFrame& frame)
      : d_(d), body_(body), frame_(frame) {
#if defined(__CUDACC__)
    device_ = make_device_runner<Record, Loop>(d, body, frame);
#endif
  }
  bool run_records(int slot, std::size_t begin, std::size_t end) override {
    return run_span(frame_, slot, DatasetInternals::records(d_).data() + begin, end - begin);
  }
  bool replay_records(const LoopFrame& frame, char* records, std::size_t count) override {
    return run_span(frame, 0, reinterpret_cast<Record*>(records), count);
  }
  void cell_finished(int slot) override {
    frame_.cell_finished(slot);
  }
  void step_finished() override {
    frame_.step_finished();
  }
  DeviceRunner* device() override {
    return device_.get();
  }

private:
  /// The one record loop of both entry points (one instantiation of the body's loop).
  bool run_span(const LoopFrame& frame, int slot, Record* recs, std::size_t count) {
    return Loop::run(body_, frame, slot, count,
                     [recs](std::size_t k) -> Record& { return recs[k]; });
  }
  Dataset<Record>& d_;
  Body& body_;
  const LoopFrame& frame_;
  std::unique_ptr<DeviceRunner> device_; ///< nvcc-compiled device loops only (CudaRunner.cuh)
};

template <int N, class Loop, class Body> class IndexRunner final : public IndexRunnerBase {
public:
  IndexRunner(const IndexSpace<N>& s, Body& body, const LoopFrame& frame)
      : s_(s), body_(body), frame_(frame) {}
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
    return Loop::run(body_, frame_, slot, count, [&](std::size_t) -> const Index<N>& {
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
  void cell_finished(int slot) override { frame_.cell_finished(slot); }
  void step_finished() override { frame_.step_finished(); }
  bool run_list(int slot, const std::size_t* indices, std::size_t count) override {
    return list_span(frame_, slot, indices, count);
  }
  bool replay_points(const LoopFrame& frame, const std::size_t* indices,
                     std::size_t count) override {
    return list_span(frame, 0, indices, count);
  }

private:
  /// The record loop of both list entry points (one instantiation of the body's loop).
  bool list_span(const LoopFrame& frame, int slot, const std::size_t* indices, std::size_t count) {
    Index<N> p;
    return Loop::run(body_, frame, slot, count, [&](std::size_t k) -> const Index<N>& {
      std::size_t lin = indices[k];
      for (int d = N - 1; d >= 0; --d) {
        const auto e = static_cast<std::size_t>(s_.extent(d));
        p.v[d] = static_cast<std::int64_t>(lin % e);
        lin /= e;
      }
      return p;
    });
  }

  const IndexSpace<N>& s_;
  Body& body_;
  const LoopFrame& frame_;
};

/// When the loop over `d` ends (or throws), marks `d` so that its first serial access brings the
/// records back (Dataset::settle); loops that follow each other pay nothing.
template <class Record> class LoopFinishedMark {
public:
  LoopFinishedMark(Dataset<Record>& d, const codegen::LoopSpec& spec) : d_(d), spec_(spec) {}
  ~LoopFinishedMark() { DatasetInternals::loop_finished(d_, spec_.file, spec_.line); }
  LoopFinishedMark(const LoopFinishedMark&) = delete;
  LoopFinishedMark& operator=(const LoopFinishedMark&) = delete;

private:
  Dataset<Record>& d_;
  const codegen::LoopSpec& spec_;
};

} // namespace rotor::detail

namespace rotor::codegen {

template <class Space, class Keys, class... Arrays, class... Reductions, class Body>
void run_loop(const LoopSpec& spec, Space& space, const Keys& keys, std::tuple<Arrays&...> arrays,
              std::tuple<Reductions&...> reductions, Body&& body) {
  run_loop(spec, space, keys, arrays, reductions, SparseCapable<>{}, std::forward<Body>(body));
}

template <class Space, class Keys, class... Arrays, class... Reductions, std::size_t... Sparse,
          class Body>
void run_loop(const LoopSpec& spec, Space& space, const Keys& keys, std::tuple<Arrays&...> arrays,
              std::tuple<Reductions&...> reductions, SparseCapable<Sparse...>, Body&& body) {
  using namespace ::rotor::detail;
  using S = std::remove_const_t<Space>;
  static_assert(IsDataset<S>::value || IsIndexSpace<S>::value,
                "rotor::codegen::run_loop: the loop must range over a rotor::Dataset or a "
                "rotor::IndexSpace");
  static_assert((IsDistArray<Arrays>::value && ...),
                "rotor::codegen::run_loop: every bound array must be a rotor::DistArray");
  LoopFrame frame;
  std::apply([&](auto&... a) { (add_array(frame, a), ...); }, arrays);
  std::apply([&](auto&... r) { (add_reduction(frame, r), ...); }, reductions);
  (frame.set_sparse_capable(Sparse), ...);
  using B = std::remove_reference_t<Body>;
  using Loop =
      BodyLoop<B, std::tuple<Arrays&...>, std::tuple<Reductions&...>, SparseCapable<Sparse...>>;
  if constexpr (IsDataset<S>::value) {
    using Record = typename S::value_type;
    DatasetAccess<Record, Keys> access(space, keys);
    DatasetRunner<Record, Loop, B> runner(space, body, frame);
    LoopFinishedMark<Record> mark(space, spec);
    run_erased_loop(spec, access, frame, runner);
  } else {
    constexpr int dims = IsIndexSpace<S>::dims;
    IndexAccess<dims> access(space);
    IndexRunner<dims, Loop, B> runner(space, body, frame);
    run_erased_loop(spec, access, frame, runner);
  }
}

} // namespace rotor::codegen
