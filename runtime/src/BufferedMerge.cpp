// One buffered array's merge (BufferedMerge.h), compiled here once per element type: the dense
// and sparse worker buffers, the managed-communication hold-back, the dense allreduce or sharded
// sparse exchange across ranks (docs/design/buffered.md).

#include "BufferedMerge.h"
#include "BufferedFlush.h"
#include "Comm.h"
#include "ManagedComm.h"
#include "rotor/runtime/detail/BufferedLoop.h"
#include "rotor/runtime/detail/SparseBuffer.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <utility>

namespace rotor::detail {

namespace {

/// Merges the changed elements `idx` (ascending) with values `val` over ranks: each rank pushes
/// its pairs to the rank owning the index (contiguous index ranges), owners add them in rank
/// order and every rank pulls the owners' sums. Returns the global (index, sum) pairs ascending.
template <class T>
void sparse_exchange(std::int64_t n, std::vector<std::int64_t>& idx, std::vector<T>& val) {
  const int ranks = comm().size();
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
    if (r != comm().rank()) {
      st.bytes_sent += static_cast<std::int64_t>(send[static_cast<std::size_t>(r)].size());
    }
  }
  std::vector<std::vector<char>> got = comm().alltoallv(send);
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
  std::vector<char> all = comm().allgatherv(out.data(), out.size(), offs);
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

template <class T> class BufferedArrayMerge final : public BufferedMerge {
public:
  using Apply = std::function<void(T&, T, std::int64_t)>;
  using Sparse = SparseRows<T>;

  /// `buffers`: the workers' buffers, each the data of a dense copy or (sparse) a SparseRows<T>.
  BufferedArrayMerge(const void* array, T* data, std::int64_t n, std::int64_t width,
                     const std::vector<void*>& buffers, bool sparse)
      : data_(data), n_(n), width_(width) {
    for (void* b : buffers) {
      if (sparse) {
        buffers_.push_back(static_cast<Sparse*>(b));
      } else {
        copies_.push_back(static_cast<T*>(b));
      }
    }
    const BufferedApplyEntry* e = find_buffered_apply(array);
    if (e != nullptr && e->element_type == element_type_of<T>() && e->data == data &&
        e->size == n) {
      apply_ = static_cast<const Apply*>(e->fn.get());
      mean_ = e->mean;
    } else if (e = find_buffered_apply(data); e != nullptr && e->container &&
                                              e->element_type == element_type_of<T>() &&
                                              e->data == data && n <= e->size) {
      apply_ = static_cast<const Apply*>(e->fn.get()); // a plain container's view (its rows)
      mean_ = e->mean;
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
    base_.assign(copies_.size(), std::vector<T>(data_, data_ + n_));
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
    const T* c = copies_[s];
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
    const T* od = data_;
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
      const T* cd = copies_[s];
      for (std::int64_t i = 0; i < n_; ++i) {
        delta_[static_cast<std::size_t>(i)] += static_cast<T>(cd[i] - od[i]);
      }
      note_density(s, changed_rows(cd, od));
    }
    exchange(across);
  }
  void apply() override {
    T* out = data_;
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
    T* c = copies_[s];
    const T* a = data_;
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
        comm().allreduce_sum_typed(delta_.data(), delta_.size(), element_type_of<T>());
        const int ranks = comm().size();
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

  T* data_; ///< the array's elements
  std::int64_t n_;
  std::int64_t width_;           ///< elements per row (a sparse buffer's unit)
  std::vector<T*> copies_;       ///< dense worker buffers (their data)
  std::vector<Sparse*> buffers_; ///< sparse worker buffers
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

template <class T>
BufferedMerge* make_merge(const void* array, void* data, std::int64_t n, std::int64_t width,
                          const std::vector<void*>& buffers, bool sparse) {
  return new BufferedArrayMerge<T>(array, static_cast<T*>(data), n, width, buffers, sparse);
}

} // namespace

BufferedMerge* make_buffered_merge(ElementType type, const void* array, void* data, std::int64_t n,
                                   std::int64_t width, const std::vector<void*>& buffers,
                                   bool sparse) {
  switch (type) {
  case ElementType::f32:
    return make_merge<float>(array, data, n, width, buffers, sparse);
  case ElementType::f64:
    return make_merge<double>(array, data, n, width, buffers, sparse);
  case ElementType::i32:
    return make_merge<std::int32_t>(array, data, n, width, buffers, sparse);
  case ElementType::i64:
    return make_merge<std::int64_t>(array, data, n, width, buffers, sparse);
  case ElementType::u32:
    return make_merge<std::uint32_t>(array, data, n, width, buffers, sparse);
  case ElementType::u64:
    return make_merge<std::uint64_t>(array, data, n, width, buffers, sparse);
  }
  unknown_element_type(type);
}

} // namespace rotor::detail
