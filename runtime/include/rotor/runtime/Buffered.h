#pragma once
/// \file
/// Buffered arrays (`#pragma rotor parallel_for buffered(w)`): every worker writes a private copy;
/// its changes (copy - the values it last saw) are merged into the array at each *flush*.
///
/// User API: `rotor::buffered_apply(w, fn)` replaces the default merge `value += delta` by
/// `fn(value, delta)` or `fn(value, delta, index)`, called once per changed element and flush with
/// the sum of every worker's change to it (docs/design/buffered.md).
///
/// Flush policy (flags, docs/design/buffered.md): at the loop's end (default),
/// `--rotor-flush-every=N` records per worker, `--rotor-staleness=s` (SSP: a worker may run at
/// most s flushes ahead of the slowest); `--rotor-buffered-exchange=auto|dense|sparse` picks how
/// ranks merge (allreduce of the whole array, or (index, value) pairs of the changed elements
/// pushed to the rank owning the index and pulled back).

#include "rotor/distarray/DistArray.h"
#include "rotor/runtime/SparseBuffer.h"
#include "rotor/runtime/detail/Engine.h"
#include "rotor/runtime/detail/ManagedComm.h"

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace rotor::detail {

/// The flush and exchange settings (flags and ROTOR_FLUSH_EVERY / ROTOR_STALENESS /
/// ROTOR_BUFFERED_EXCHANGE). Tests may change them between loops.
struct BufferedSettings {
  enum class Exchange { automatic, dense, sparse };
  std::int64_t flush_every = 0; ///< records per worker between flushes; 0: at the loop's end
  int staleness = 0;            ///< SSP bound s (with flush_every > 0)
  Exchange exchange = Exchange::automatic;
  /// --rotor-worker-buffer: dense copies or sparse hash maps per worker (same three choices;
  /// automatic: buffered_sparse_buffers()).
  Exchange worker_buffer = Exchange::automatic;
  /// --rotor-managed-comm=BYTES: a worker's flush sends at most BYTES of rows, largest change
  /// first (0: everything); needs flush_every and staleness >= 1 (docs/design/buffered.md).
  std::int64_t managed_bytes = 0;
  bool record_events = false; ///< tests: log every publish / resume with its clock
};
BufferedSettings& buffered_settings();
/// Session flag parsing: true when `name` is one of the buffered flags (then parsed or thrown).
bool parse_buffered_flag(const std::string& name, const std::string& value, bool has_value);
std::string buffered_flags_help();
/// The flag parser's environment pass (a flag given on the command line wins).
void buffered_from_environment();

/// What the last loop's merges did on this rank (tests, benchmarks, --rotor-verbose).
struct BufferedStats {
  std::int64_t rounds = 0;         ///< flush rounds merged
  std::int64_t dense_merges = 0;   ///< array merges by allreduce (or locally at np 1)
  std::int64_t sparse_merges = 0;  ///< array merges by the sharded (index, value) exchange
  std::int64_t pushed_entries = 0; ///< (index, value) pairs this rank pushed to owners
  std::int64_t bytes_sent = 0;     ///< bytes this rank sent for merges
  std::int64_t held_rows = 0;      ///< managed communication: rows a flush held back (summed)
  std::int64_t sparse_buffers = 0; ///< buffered arrays whose workers used sparse buffers
  std::int64_t buffer_bytes = 0;   ///< bytes of worker buffers (and flush state) at the loop end
  double worker_density = 0;       ///< largest fraction of rows one worker touched per merge
  double exchange_s = 0;           ///< seconds in merge communication
};
BufferedStats& buffered_stats();

/// One instrumented event (settings.record_events): `kind` 0 = worker published flush `clock`,
/// 1 = worker resumed computing after flush `clock`. `ns` is CLOCK_MONOTONIC (one clock for every
/// process on a machine).
struct BufferedEvent {
  std::int32_t worker;
  std::int32_t kind;
  std::int64_t clock;
  std::int64_t ns;
};
std::vector<BufferedEvent>& buffered_events();

/// How one loop execution flushes its buffered arrays (plan_buffered decides).
struct BufferedPlan {
  std::int64_t flush_every = 0; ///< 0: one merge at the loop's end
  int staleness = 0;
  bool across = false;            ///< merge across ranks
  std::int64_t managed_bytes = 0; ///< per worker flush; 0: send every change
  bool each_step = false;         ///< multi-step plans: merge after every step of the schedule
};
/// The settings applied to this loop: with --rotor-flush-every, one-step plans (independent,
/// data_parallel) whose workers all run at once flush every N records; multi-step plans
/// (rotation, one_d, wavefront) merge after each step of their schedule instead.
BufferedPlan plan_buffered(const codegen::LoopSpec& spec, const ExecutionInfo& info);

// -- custom apply registry ----------------------------------------------------------------------

struct BufferedApplyEntry {
  ElementType element_type = ElementType::f32;
  const void* data = nullptr; ///< the array's data() when registered (a reused address is stale)
  std::int64_t size = 0;
  std::shared_ptr<void> fn; ///< std::function<void(T&, T, std::int64_t)>; null: mean
  bool mean = false;        ///< buffered_mean: value += delta / workers
};
void register_buffered_apply(const void* array, BufferedApplyEntry entry);
void unregister_buffered_apply(const void* array);
const BufferedApplyEntry* find_buffered_apply(const void* array);

// -- exchange (Buffered.cpp) -------------------------------------------------------------------

std::vector<std::vector<char>> buffered_alltoallv(const std::vector<std::vector<char>>& send);
std::vector<char> buffered_allgather(const void* data, std::size_t bytes,
                                     std::vector<std::size_t>& offsets);
void buffered_allreduce(void* values, std::size_t count, ElementType element_type);
void buffered_allreduce_counts(std::int64_t* values, std::size_t count);
int buffered_rank();
int buffered_ranks();
double buffered_now();
/// True when a loop's sparse-capable buffered array of `elements` should get sparse worker
/// buffers: the flag, else the rule of docs/design/buffered.md on the largest fraction of rows
/// one worker touched between merges in this loop's previous execution (`last_density` < 0: none
/// yet, dense).
bool buffered_sparse_buffers(std::int64_t elements, double last_density);
/// The worker density measured in the last execution of the loop at `file`:`line` (-1: none).
double& buffered_loop_density(const char* file, int line);
/// True when the array should merge by the sparse exchange this round: the flag, else
/// density * (8 + elem) < elem / 2 for arrays of at least 4096 elements (docs/design/buffered.md).
bool buffered_use_sparse(std::int64_t elements, std::size_t elem_bytes, double last_density);

// -- one buffered array ------------------------------------------------------------------------

/// Type-erased merge operations of one buffered array (the coordinator drives them).
class BufferedMerge {
public:
  virtual ~BufferedMerge() = default;
  /// Flush mode: per-slot base and `ring` pending delta arrays.
  virtual void start_flushing(int ring) = 0;
  /// pending[slot][ring] = copy - base: the worker's flush `clock`. With managed communication
  /// (set_managed) only the largest changes within the budget, and those held back for s flushes;
  /// the rest stays in the worker's view. `final`: the worker's last flush, everything.
  virtual void take(int slot, int ring, std::int64_t clock, bool final) = 0;
  /// Managed communication: each flush of a worker sends at most `budget_bytes` of (index, value)
  /// rows, largest |delta| first, and holds the rest back for at most `hold` flushes.
  virtual void set_managed(std::int64_t budget_bytes, int hold) = 0;
  /// Managed communication: rows the workers' flushes held back, summed over flushes.
  virtual std::int64_t held_rows() const = 0;
  /// Sums pending[s][rings[s]] (rings[s] >= 0) in slot order; merges across ranks.
  virtual void prepare_round(const std::vector<int>& rings, bool across) = 0;
  /// Sums (copy - array) over the slots: the loop-end flush; merges across ranks.
  virtual void prepare_loop_end(bool across) = 0;
  /// Applies the prepared merge to the array (the caller holds the table lock).
  virtual void apply() = 0;
  /// The number of workers whose changes one merge adds (buffered_mean divides by it).
  virtual void set_workers(int workers) = 0;
  /// copy = array + pending[slot][r] for r in rings; base = copy; copy += the changes held back.
  virtual void refresh(int slot, const std::vector<int>& rings) = 0;
  /// The largest fraction of the array's rows one worker touched between two merges (sparse
  /// buffers: rows read or written; dense copies: rows changed). Chooses the next buffer kind.
  virtual double worker_density() const = 0;
  /// Bytes this rank holds for the workers' buffers, bases and pending flushes.
  virtual std::size_t buffer_bytes() const = 0;
};

/// Merges the changed elements `idx` (ascending) with values `val` over ranks: each rank pushes
/// its pairs to the rank owning the index (contiguous index ranges), owners add them in rank
/// order and every rank pulls the owners' sums. Returns the global (index, sum) pairs ascending.
template <class T>
void sparse_exchange(std::int64_t n, std::vector<std::int64_t>& idx, std::vector<T>& val) {
  const int ranks = buffered_ranks();
  constexpr std::size_t pair = sizeof(std::int64_t) + sizeof(T);
  std::vector<std::vector<char>> send(static_cast<std::size_t>(ranks));
  BufferedStats& st = buffered_stats();
  for (std::size_t k = 0; k < idx.size(); ++k) {
    const auto owner = static_cast<std::size_t>((idx[k] * ranks) / n);
    std::vector<char>& b = send[owner];
    const std::size_t at = b.size();
    b.resize(at + pair);
    std::memcpy(b.data() + at, &idx[k], sizeof(std::int64_t));
    std::memcpy(b.data() + at + sizeof(std::int64_t), &val[k], sizeof(T));
  }
  st.pushed_entries += static_cast<std::int64_t>(idx.size());
  for (int r = 0; r < ranks; ++r) {
    if (r != buffered_rank()) {
      st.bytes_sent += static_cast<std::int64_t>(send[static_cast<std::size_t>(r)].size());
    }
  }
  std::vector<std::vector<char>> got = buffered_alltoallv(send);
  // owner: add in rank order, keys ascending
  std::vector<std::pair<std::int64_t, T>> mine;
  for (const std::vector<char>& b : got) {
    for (std::size_t at = 0; at + pair <= b.size(); at += pair) {
      std::pair<std::int64_t, T> e;
      std::memcpy(&e.first, b.data() + at, sizeof(std::int64_t));
      std::memcpy(&e.second, b.data() + at + sizeof(std::int64_t), sizeof(T));
      mine.push_back(e);
    }
  }
  std::stable_sort(mine.begin(), mine.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<char> out;
  for (std::size_t k = 0; k < mine.size();) {
    std::pair<std::int64_t, T> sum = mine[k++];
    while (k < mine.size() && mine[k].first == sum.first) {
      sum.second = static_cast<T>(sum.second + mine[k++].second);
    }
    const std::size_t at = out.size();
    out.resize(at + pair);
    std::memcpy(out.data() + at, &sum.first, sizeof(std::int64_t));
    std::memcpy(out.data() + at + sizeof(std::int64_t), &sum.second, sizeof(T));
  }
  st.bytes_sent += static_cast<std::int64_t>(out.size()) * (ranks - 1);
  std::vector<std::size_t> offs;
  std::vector<char> all = buffered_allgather(out.data(), out.size(), offs);
  idx.clear();
  val.clear();
  for (std::size_t at = 0; at + pair <= all.size(); at += pair) {
    std::int64_t i = 0;
    T v{};
    std::memcpy(&i, all.data() + at, sizeof(std::int64_t));
    std::memcpy(&v, all.data() + at + sizeof(std::int64_t), sizeof(T));
    idx.push_back(i);
    val.push_back(v);
  }
}

/// One value per worker on its own cache line: each worker updates its own on the flush path,
/// sharing neither a line nor a race with the others.
template <class V> struct alignas(64) PerWorker { V value{}; };

template <class T, int N> class BufferedArrayMerge final : public BufferedMerge {
public:
  using Apply = std::function<void(T&, T, std::int64_t)>;
  using Sparse = SparseBuffer<T, N>;

  /// `objects`: the workers' buffers, DistArray<T, N> copies or (sparse) SparseBuffer<T, N>.
  BufferedArrayMerge(DistArray<T, N>& array, const std::vector<void*>& objects, bool sparse)
      : array_(array), n_(array.size()),
        width_(N == 1 || array.size() == 0 ? 1 : array.size() / array.extent(0)) {
    for (void* o : objects) {
      if (sparse) {
        buffers_.push_back(static_cast<Sparse*>(o));
      } else {
        copies_.push_back(static_cast<DistArray<T, N>*>(o));
      }
    }
    if (const BufferedApplyEntry* e = find_buffered_apply(&array)) {
      if (e->element_type == element_type_of<T>() && e->data == array.data() &&
          e->size == array.size()) {
        apply_ = static_cast<const Apply*>(e->fn.get());
        mean_ = e->mean;
      }
    }
    densities_.resize(std::max(copies_.size(), buffers_.size()));
  }

  void set_workers(int workers) override { workers_ = workers; }
  double worker_density() const override {
    double most = 0;
    for (const PerWorker<double>& d : densities_) {
      most = std::max(most, d.value);
    }
    return most;
  }
  std::size_t buffer_bytes() const override {
    std::size_t bytes = 0;
    for (const Sparse* b : buffers_) {
      bytes += b->bytes();
    }
    for (const auto& rings : pending_sparse_) {
      for (const SparsePending& p : rings) {
        bytes += p.keys.capacity() * sizeof(std::int64_t) + p.deltas.capacity() * sizeof(T);
      }
    }
    const std::size_t dense = static_cast<std::size_t>(n_) * sizeof(T);
    bytes += copies_.size() * dense + base_.size() * dense;
    for (const auto& rings : pending_) {
      bytes += rings.size() * dense;
    }
    return bytes;
  }
  void start_flushing(int ring) override {
    if (!buffers_.empty()) { // workers copy rows in while the merger writes the array
      concurrent_ = true;
      pending_sparse_.assign(buffers_.size(),
                             std::vector<SparsePending>(static_cast<std::size_t>(ring)));
      held_sparse_.assign(buffers_.size(), SparseHeld{});
      return;
    }
    base_.assign(copies_.size(), std::vector<T>(array_.data(), array_.data() + n_));
    pending_.assign(copies_.size(), std::vector<std::vector<T>>(
                                        static_cast<std::size_t>(ring),
                                        std::vector<T>(static_cast<std::size_t>(n_), T(0))));
    if (managed_) {
      held_.assign(copies_.size(), std::vector<T>(static_cast<std::size_t>(n_), T(0)));
      held_since_.assign(copies_.size(),
                         std::vector<std::int64_t>(static_cast<std::size_t>(n_ / width_), -1));
    }
  }
  void set_managed(std::int64_t budget_bytes, int hold) override {
    const auto row = static_cast<std::int64_t>(sizeof(std::int64_t)) +
                     width_ * static_cast<std::int64_t>(sizeof(T));
    budget_ = static_cast<std::size_t>(std::max<std::int64_t>(1, budget_bytes / row));
    hold_ = hold;
    managed_ = budget_bytes > 0;
    held_rows_.assign(std::max(copies_.size(), buffers_.size()), PerWorker<std::int64_t>{});
  }
  std::int64_t held_rows() const override {
    std::int64_t n = 0;
    for (const PerWorker<std::int64_t>& c : held_rows_) {
      n += c.value;
    }
    return n;
  }
  void take(int slot, int ring, std::int64_t clock, bool final) override {
    const auto s = static_cast<std::size_t>(slot);
    if (!buffers_.empty()) {
      Sparse& b = *buffers_[s];
      SparsePending& p = pending_sparse_[s][static_cast<std::size_t>(ring)];
      p.keys.clear();
      p.deltas.clear();
      for (std::size_t k = 0; k < b.touched(); ++k) {
        const T* v = b.value(k);
        const T* o = b.base(k);
        const std::size_t at = p.deltas.size();
        bool changed = false;
        p.deltas.resize(at + static_cast<std::size_t>(width_));
        for (std::int64_t j = 0; j < width_; ++j) {
          p.deltas[at + static_cast<std::size_t>(j)] = static_cast<T>(v[j] - o[j]);
          changed = changed || v[j] != o[j];
        }
        if (changed) {
          p.keys.push_back(b.key(k));
        } else {
          p.deltas.resize(at);
        }
      }
      note_density(s, b.touched());
      if (managed_) {
        hold_back_sparse(s, p, clock, final);
      }
      return;
    }
    const T* c = copies_[s]->data();
    const T* b = base_[s].data();
    T* p = pending_[s][static_cast<std::size_t>(ring)].data();
    for (std::int64_t i = 0; i < n_; ++i) {
      p[i] = static_cast<T>(c[i] - b[i]);
    }
    note_density(s, changed_rows(c, b));
    if (managed_) {
      hold_back_dense(s, p, clock, final);
    }
  }
  void prepare_round(const std::vector<int>& rings, bool across) override {
    delta_.assign(static_cast<std::size_t>(n_), T(0));
    for (std::size_t s = 0; s < rings.size(); ++s) {
      if (rings[s] < 0) {
        continue;
      }
      if (!buffers_.empty()) {
        // Skipping a worker's untouched elements adds nothing: the sum starts at +0 and never
        // becomes -0, so x + (+0) == x bitwise and the dense buffer's result is reproduced.
        const SparsePending& p = pending_sparse_[s][static_cast<std::size_t>(rings[s])];
        add_rows(p.keys, p.deltas.data());
        continue;
      }
      const T* p = pending_[s][static_cast<std::size_t>(rings[s])].data();
      for (std::int64_t i = 0; i < n_; ++i) {
        delta_[static_cast<std::size_t>(i)] += p[i];
      }
    }
    exchange(across);
  }
  void prepare_loop_end(bool across) override {
    delta_.assign(static_cast<std::size_t>(n_), T(0));
    const T* od = array_.data();
    for (std::size_t s = 0; s < buffers_.size(); ++s) { // the array is unchanged: base == array
      Sparse* b = buffers_[s];
      for (std::size_t k = 0; k < b->touched(); ++k) {
        T* d = delta_.data() + b->key(k) * width_;
        const T* v = b->value(k);
        const T* o = b->base(k);
        for (std::int64_t j = 0; j < width_; ++j) {
          d[j] += static_cast<T>(v[j] - o[j]);
        }
      }
      note_density(s, b->touched());
    }
    for (std::size_t s = 0; s < copies_.size(); ++s) {
      const T* cd = copies_[s]->data();
      for (std::int64_t i = 0; i < n_; ++i) {
        delta_[static_cast<std::size_t>(i)] += static_cast<T>(cd[i] - od[i]);
      }
      note_density(s, changed_rows(cd, od));
    }
    exchange(across);
  }
  void apply() override {
    T* out = array_.data();
    if (mean_ && workers_ > 1) {
      const T w = static_cast<T>(workers_);
      for (T& v : sparse_exchange_ ? val_ : delta_) {
        v = static_cast<T>(v / w);
      }
    }
    if (sparse_exchange_) {
      for (std::size_t k = 0; k < idx_.size(); ++k) {
        apply_one(out[idx_[k]], val_[k], idx_[k]);
      }
      return;
    }
    if (!apply_) { // the default merge: bitwise the historical `original += delta`
      for (std::int64_t i = 0; i < n_; ++i) {
        if (concurrent_) {
          store_shared(out + i, static_cast<T>(out[i] + delta_[static_cast<std::size_t>(i)]));
        } else {
          out[i] += delta_[static_cast<std::size_t>(i)];
        }
      }
      return;
    }
    for (std::int64_t i = 0; i < n_; ++i) {
      if (delta_[static_cast<std::size_t>(i)] != T(0)) {
        apply_one(out[i], delta_[static_cast<std::size_t>(i)], i);
      }
    }
  }
  void refresh(int slot, const std::vector<int>& rings) override {
    const auto s = static_cast<std::size_t>(slot);
    if (!buffers_.empty()) {
      // The view restarts from the array; rows with own unmerged flushes are copied in with
      // those changes added (in ring order, as the dense copy adds them), the rest on demand.
      Sparse& b = *buffers_[s];
      b.clear();
      for (int r : rings) {
        const SparsePending& p = pending_sparse_[s][static_cast<std::size_t>(r)];
        for (std::size_t k = 0; k < p.keys.size(); ++k) {
          T* row = b.row_data(p.keys[k]);
          const T* d = p.deltas.data() + k * static_cast<std::size_t>(width_);
          for (std::int64_t j = 0; j < width_; ++j) {
            row[j] += d[j];
          }
        }
      }
      b.rebase();
      if (managed_) { // held-back changes stay in the view, above the base: sent later
        const SparseHeld& h = held_sparse_[s];
        for (std::size_t k = 0; k < h.keys.size(); ++k) {
          T* row = b.row_data(h.keys[k]);
          const T* d = h.deltas.data() + k * static_cast<std::size_t>(width_);
          for (std::int64_t j = 0; j < width_; ++j) {
            row[j] += d[j];
          }
        }
      }
      return;
    }
    T* c = copies_[s]->data();
    const T* a = array_.data();
    for (std::int64_t i = 0; i < n_; ++i) {
      c[i] = a[i];
    }
    for (int r : rings) {
      const T* p = pending_[s][static_cast<std::size_t>(r)].data();
      for (std::int64_t i = 0; i < n_; ++i) {
        c[i] += p[i];
      }
    }
    std::vector<T>& b = base_[s];
    std::copy(c, c + n_, b.begin());
    if (managed_) {
      const T* h = held_[s].data();
      for (std::int64_t i = 0; i < n_; ++i) {
        c[i] += h[i];
      }
    }
  }

private:
  /// One sparse worker's flush: the rows it changed and their deltas (width_ values per key).
  struct SparsePending {
    std::vector<std::int64_t> keys;
    std::vector<T> deltas;
  };
  /// A sparse worker's held-back rows: key, the flush that first held it, deltas.
  struct SparseHeld {
    std::vector<std::int64_t> keys;
    std::vector<std::int64_t> since;
    std::vector<T> deltas;
  };

  /// A change first held back at flush `since` (-1: made since the last flush) must go out with
  /// flush `clock` when holding it once more would exceed hold_ flushes.
  bool due(std::int64_t since, std::int64_t clock) const {
    return (since >= 0 ? since : clock) + hold_ <= clock;
  }
  /// Managed communication, dense copy: the rows of `p` this flush does not send move to held_
  /// (zero in `p`); the view keeps them (refresh adds held_ above the base).
  void hold_back_dense(std::size_t s, T* p, std::int64_t clock, bool final) {
    T* held = held_[s].data();
    std::int64_t* since = held_since_[s].data();
    std::vector<SendCandidate> cand;
    const std::int64_t rows = n_ / width_;
    for (std::int64_t r = 0; r < rows; ++r) {
      const double m = largest_magnitude(p + r * width_, width_);
      if (m == 0) {
        since[r] = -1;
        std::fill(held + r * width_, held + (r + 1) * width_, T(0));
        continue;
      }
      cand.push_back({m, r, final || due(since[r], clock), false});
    }
    choose_sends(cand, budget_);
    for (const SendCandidate& c : cand) {
      T* row = p + c.key * width_;
      T* h = held + c.key * width_;
      if (c.send) {
        since[c.key] = -1;
        std::fill(h, h + width_, T(0));
        continue;
      }
      std::copy(row, row + width_, h);
      std::fill(row, row + width_, T(0));
      since[c.key] = since[c.key] >= 0 ? since[c.key] : clock;
      ++held_rows_[s].value;
    }
  }
  /// Managed communication, sparse buffer: the same on the flush's row list.
  void hold_back_sparse(std::size_t s, SparsePending& p, std::int64_t clock, bool final) {
    SparseHeld& h = held_sparse_[s];
    std::vector<std::pair<std::int64_t, std::int64_t>> since; // key -> first held, sorted
    for (std::size_t k = 0; k < h.keys.size(); ++k) {
      since.emplace_back(h.keys[k], h.since[k]);
    }
    std::sort(since.begin(), since.end());
    const auto first_held = [&](std::int64_t key) -> std::int64_t {
      auto it = std::lower_bound(since.begin(), since.end(), std::make_pair(key, std::int64_t(-1)));
      return it != since.end() && it->first == key ? it->second : -1;
    };
    std::vector<SendCandidate> cand;
    for (std::size_t k = 0; k < p.keys.size(); ++k) {
      const std::int64_t from = first_held(p.keys[k]);
      cand.push_back(
          {largest_magnitude(p.deltas.data() + k * static_cast<std::size_t>(width_), width_),
           p.keys[k], final || due(from, clock), false});
    }
    choose_sends(cand, budget_);
    SparsePending sent;
    SparseHeld kept;
    for (std::size_t k = 0; k < cand.size(); ++k) {
      const T* d = p.deltas.data() + k * static_cast<std::size_t>(width_);
      if (cand[k].send) {
        sent.keys.push_back(p.keys[k]);
        sent.deltas.insert(sent.deltas.end(), d, d + width_);
        continue;
      }
      const std::int64_t from = first_held(p.keys[k]);
      kept.keys.push_back(p.keys[k]);
      kept.since.push_back(from >= 0 ? from : clock);
      kept.deltas.insert(kept.deltas.end(), d, d + width_);
      ++held_rows_[s].value;
    }
    p = std::move(sent);
    h = std::move(kept);
  }

  void apply_one(T& value, T delta, std::int64_t i) const {
    T v = value;
    if (apply_) {
      (*apply_)(v, delta, i);
    } else {
      v += delta;
    }
    if (concurrent_) {
      store_shared(&value, v);
    } else {
      value = v;
    }
  }
  void add_rows(const std::vector<std::int64_t>& keys, const T* deltas) {
    for (std::size_t k = 0; k < keys.size(); ++k) {
      T* d = delta_.data() + keys[k] * width_;
      const T* p = deltas + k * static_cast<std::size_t>(width_);
      for (std::int64_t j = 0; j < width_; ++j) {
        d[j] += p[j];
      }
    }
  }
  std::size_t changed_rows(const T* c, const T* b) const {
    std::size_t rows = 0;
    for (std::int64_t r = 0; r * width_ < n_; ++r) {
      for (std::int64_t j = r * width_; j < (r + 1) * width_; ++j) {
        if (c[j] != b[j]) {
          ++rows;
          break;
        }
      }
    }
    return rows;
  }
  /// Worker `slot` touched `rows` rows since its last merge (workers call it concurrently).
  void note_density(std::size_t slot, std::size_t rows) {
    const std::int64_t all = width_ > 0 ? n_ / width_ : 0;
    if (all > 0) {
      double& d = densities_[slot].value;
      d = std::max(d, static_cast<double>(rows) / static_cast<double>(all));
    }
  }
  void exchange(bool across) {
    const double t0 = buffered_now();
    BufferedStats& st = buffered_stats();
    sparse_exchange_ = buffered_use_sparse(n_, sizeof(T), density_);
    std::int64_t touched = 0;
    if (sparse_exchange_) {
      idx_.clear();
      val_.clear();
      for (std::int64_t i = 0; i < n_; ++i) {
        if (delta_[static_cast<std::size_t>(i)] != T(0)) {
          idx_.push_back(i);
          val_.push_back(delta_[static_cast<std::size_t>(i)]);
        }
      }
      if (across) {
        sparse_exchange<T>(n_, idx_, val_);
      } else {
        st.pushed_entries += static_cast<std::int64_t>(idx_.size());
      }
      touched = static_cast<std::int64_t>(idx_.size());
      ++st.sparse_merges;
    } else {
      if (across) {
        buffered_allreduce(delta_.data(), delta_.size(), element_type_of<T>());
        const int ranks = buffered_ranks();
        st.bytes_sent += static_cast<std::int64_t>(2.0 * (ranks - 1) / ranks *
                                                   static_cast<double>(n_ * sizeof(T)));
      }
      for (std::int64_t i = 0; i < n_; ++i) {
        touched += delta_[static_cast<std::size_t>(i)] != T(0) ? 1 : 0;
      }
      ++st.dense_merges;
    }
    density_ = n_ > 0 ? static_cast<double>(touched) / static_cast<double>(n_) : 1.0;
    st.exchange_s += buffered_now() - t0;
  }

  DistArray<T, N>& array_;
  std::int64_t n_;
  std::int64_t width_;                   ///< elements per row (a sparse buffer's unit)
  std::vector<DistArray<T, N>*> copies_; ///< dense worker buffers
  std::vector<Sparse*> buffers_;         ///< sparse worker buffers
  const Apply* apply_ = nullptr;
  bool mean_ = false;
  bool concurrent_ = false; ///< sparse workers read the array while rounds are applied
  int workers_ = 1;
  std::vector<std::vector<T>> base_;
  std::vector<std::vector<std::vector<T>>> pending_;
  std::vector<std::vector<SparsePending>> pending_sparse_;
  bool managed_ = false;                              ///< --rotor-managed-comm
  std::size_t budget_ = 0;                            ///< rows a flush sends (beyond those due)
  int hold_ = 0;                                      ///< flushes a row may be held back
  std::vector<std::vector<T>> held_;                  ///< dense: held-back changes per slot
  std::vector<std::vector<std::int64_t>> held_since_; ///< dense: flush that first held a row
  std::vector<SparseHeld> held_sparse_;
  std::vector<PerWorker<std::int64_t>> held_rows_; ///< rows held back at some flush, per worker
  /// per worker: the largest fraction of rows it touched between two of its merges
  std::vector<PerWorker<double>> densities_;
  std::vector<T> delta_;
  bool sparse_exchange_ = false;
  double density_ = -1; ///< touched fraction at the last merge (-1: none yet)
  std::vector<std::int64_t> idx_;
  std::vector<T> val_;
};

// -- the flush coordinator (Buffered.cpp) ------------------------------------------------------

/// Drives the flushes of one loop execution: per-worker clocks, the SSP wait, the rounds that
/// merge every worker's n-th flush (in slot order, then across ranks), the final drain.
class FlushCoordinator {
public:
  /// `every` = 0: one merge at the loop's end (finish()).
  /// `managed_bytes` > 0: managed communication (changes held back up to `staleness` flushes,
  /// so workers wait for every round: the bound s is spent on the held changes).
  /// `each_step`: no flushes inside cells; every worker's changes merge when the engine finishes
  /// a step (step_finished, on the engine's thread, all ranks alike).
  FlushCoordinator(int slots, std::int64_t every, int staleness, bool across,
                   std::vector<BufferedMerge*> merges, std::int64_t managed_bytes = 0,
                   bool each_step = false);
  ~FlushCoordinator();
  FlushCoordinator(const FlushCoordinator&) = delete;
  FlushCoordinator& operator=(const FlushCoordinator&) = delete;

  bool flushing() const { return every_ > 0; }
  /// Called by the worker after each record.
  void after_record(int slot) {
    if (every_ > 0 && ++since_[static_cast<std::size_t>(slot)].value == every_) {
      flush(slot);
    }
  }
  /// The worker ran all its records: publishes its last changes and leaves the clock table.
  void retire(int slot);
  /// The worker threw: nobody waits any more.
  void fail();
  /// Step mode: merges every slot's changes since the last step (slot order, then across ranks)
  /// and restarts each slot's view from the merged array.
  void step_finished();
  /// After the engine: retires slots that never ran, merges what is left (loop-end mode: the
  /// single merge), records the events.
  void finish();

private:
  void flush(int slot);
  void publish(int slot, bool retiring);
  void merge_loop();
  void log(int slot, int kind, std::int64_t clock);

  int slots_;
  std::int64_t every_;
  int staleness_;
  int wait_; ///< a worker may run this many rounds ahead of the merged ones
  bool each_step_ = false;
  std::int64_t steps_ = 0; ///< step merges so far (each_step_)
  int ring_;
  bool across_;
  std::vector<BufferedMerge*> merges_;
  std::vector<PerWorker<std::int64_t>> since_; ///< records since each slot's last flush
  std::mutex mu_;                              ///< clocks, merged_, flags, events
  std::mutex table_mu_;             ///< the arrays' values (written by apply, read by refresh)
  std::condition_variable cv_;      ///< workers wait here for merged rounds
  std::condition_variable work_cv_; ///< the merger waits here for publishes
  std::vector<std::int64_t> clock_;
  std::vector<bool> retired_;
  std::int64_t merged_ = 0;
  bool done_ = false;
  bool failed_ = false;
  bool stop_ = false;
  std::exception_ptr error_;
  std::thread merger_;
  std::vector<BufferedEvent> events_;
};

} // namespace rotor::detail

namespace rotor {

/// Replaces the merge of buffered array `array` (default: `value += delta`) by `fn`, which is
/// called at each flush once for every element some worker changed, with the sum of the
/// workers' changes (`delta`) and the element's linear index: `fn(T& value, T delta)` or
/// `fn(T& value, T delta, std::int64_t index)`. Call it before the loop, on every rank; it
/// stays until buffered_sum(array). Reads inside the loop still see the worker's copy with its
/// own raw changes until the next flush.
template <class T, int N, class Fn> void buffered_apply(DistArray<T, N>& array, Fn fn) {
  using Apply = std::function<void(T&, T, std::int64_t)>;
  detail::BufferedApplyEntry e;
  e.element_type = detail::element_type_of<T>();
  e.data = array.data();
  e.size = array.size();
  if constexpr (std::is_invocable_v<Fn&, T&, T, std::int64_t>) {
    e.fn = std::make_shared<Apply>(std::move(fn));
  } else {
    static_assert(std::is_invocable_v<Fn&, T&, T>,
                  "rotor::buffered_apply: fn must be callable as fn(T& value, T delta) or "
                  "fn(T& value, T delta, std::int64_t index)");
    e.fn = std::make_shared<Apply>(
        [f = std::move(fn)](T& value, T delta, std::int64_t) mutable { f(value, delta); });
  }
  detail::register_buffered_apply(&array, std::move(e));
}

/// Merges `array` by the mean of the workers' changes (`value += delta / workers`, workers =
/// ranks x threads of the loop): model averaging for data-parallel SGD, where the sum would apply
/// every worker's step to the same weights. Floating-point arrays only.
template <class T, int N> void buffered_mean(DistArray<T, N>& array) {
  static_assert(std::is_floating_point_v<T>, "rotor::buffered_mean: a float or double array");
  detail::BufferedApplyEntry e;
  e.element_type = detail::element_type_of<T>();
  e.data = array.data();
  e.size = array.size();
  e.mean = true;
  detail::register_buffered_apply(&array, std::move(e));
}

/// Back to the default merge (`value += delta`) for `array`.
template <class T, int N> void buffered_sum(DistArray<T, N>& array) {
  detail::unregister_buffered_apply(&array);
}

} // namespace rotor
