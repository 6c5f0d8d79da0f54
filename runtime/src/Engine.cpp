#include "rotor/runtime/detail/Engine.h"

#include "Arena.h"
#include "Box.h"
#include "Comm.h"
#include "Layout.h"
#include "Observability.h"
#include "OrderRecorder.h"
#include "SessionState.h"
#include "rotor/distarray/detail/AccessCheck.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

namespace rotor::detail {
namespace {

using codegen::Kind;
using Clock = std::chrono::steady_clock;

std::string where(const codegen::LoopSpec& spec) {
  return std::string(spec.file) + ":" + std::to_string(spec.line);
}

// ---------------------------------------------------------------------------------------------
// Access check: the guard a worker thread holds while it runs a cell.

struct ArrayCheck {
  const void* identity = nullptr;
  std::string name;
  std::vector<std::int64_t> shape;
  Box allowed; ///< empty lo: everything allowed
};

class CellGuard final : public AccessGuard {
public:
  CellGuard(const codegen::LoopSpec& spec, std::vector<ArrayCheck> arrays, int worker, int step)
      : spec_(spec), arrays_(std::move(arrays)), worker_(worker), step_(step) {}
  void check(const void* array, const std::int64_t* index, int count, bool) const override {
    for (const ArrayCheck& a : arrays_) {
      if (a.identity != array) {
        continue;
      }
      bool ok = true;
      for (int d = 0; d < count && ok; ++d) {
        const std::int64_t lo = a.allowed.lo.empty() ? 0 : a.allowed.lo[d];
        const std::int64_t hi = a.allowed.lo.empty() ? a.shape[d] : a.allowed.hi[d];
        if (index[d] == -1) {
          ok = lo == 0 && hi == a.shape[d];
        } else {
          ok = index[d] >= lo && index[d] < hi && index[d] < a.shape[d];
        }
      }
      if (!ok) {
        fail(a, index, count);
      }
      return;
    }
  }

private:
  [[noreturn]] void fail(const ArrayCheck& a, const std::int64_t* index, int count) const {
    std::ostringstream msg;
    msg << "[rank " << comm().rank() << "] rotor: access check failed in the loop at "
        << where(spec_) << " (plan " << kind_name(spec_.kind) << "): " << a.name << "(";
    for (int d = 0; d < count; ++d) {
      msg << (d ? ", " : "");
      if (index[d] == -1) {
        msg << ":";
      } else {
        msg << index[d];
      }
    }
    msg << ") is outside the block of worker " << worker_ << " at step " << step_ << ", ";
    for (std::size_t d = 0; d < a.shape.size(); ++d) {
      msg << (d ? " x " : "") << "[" << (a.allowed.lo.empty() ? 0 : a.allowed.lo[d]) << ", "
          << (a.allowed.lo.empty() ? a.shape[d] : a.allowed.hi[d]) << ")";
    }
    msg << " (the plan's footprint is wrong, or the body indexes the array by something the "
           "analysis did not see)";
    throw std::logic_error(msg.str());
  }

  const codegen::LoopSpec& spec_;
  std::vector<ArrayCheck> arrays_;
  int worker_, step_;
};

struct GuardScope {
  explicit GuardScope(const AccessGuard* g) { current_access_guard() = g; }
  ~GuardScope() { current_access_guard() = nullptr; }
};

// ---------------------------------------------------------------------------------------------
// Footprints and the movement plan

Box whole(const std::vector<std::int64_t>& shape) {
  Box b;
  b.lo.assign(shape.size(), 0);
  b.hi = shape;
  return b;
}

/// The elements of array `a` that cell `cell` may touch.
Box footprint(const codegen::LoopSpec& spec, int spec_array, const ArrayBinding& a,
              const Schedule& s, int cell) {
  Box b = whole(a.shape);
  const auto& dims = spec.arrays[spec_array].dims;
  for (std::size_t d = 0; d < a.shape.size() && d < dims.size(); ++d) {
    const codegen::Dim& dim = dims[d];
    if (dim.key < 0) {
      continue;
    }
    for (int j = 0; j < s.fields(); ++j) {
      if (s.field_keys[j] != dim.key || s.blocks[j] == 1) {
        continue; // not this field, or one block: the whole dimension
      }
      const int blk = s.coordinate(cell, j);
      const std::int64_t first = s.block_first(j, blk), end = s.block_end(j, blk);
      if (first >= end) {
        b.hi[d] = b.lo[d]; // empty block: touches nothing
        break;
      }
      b.lo[d] = std::max<std::int64_t>(0, first + dim.lo);
      b.hi[d] = std::min<std::int64_t>(a.shape[d], end + dim.hi);
      break;
    }
  }
  return b;
}

/// True when some dimension of the array follows a partition field (its blocks move as boxes);
/// otherwise a written array is synced by comparing against a snapshot.
bool follows_fields(const codegen::LoopSpec& spec, int spec_array, const Schedule& s) {
  for (const codegen::Dim& dim : spec.arrays[spec_array].dims) {
    for (int fk : s.field_keys) {
      if (dim.key >= 0 && dim.key == fk) {
        return true;
      }
    }
  }
  return false;
}

struct Transfer {
  int after_step = 0;
  int needed_by = 0; ///< the step whose cell first reads it on the receiving rank
  int from = 0, to = 0;
  int array = 0; ///< index into the bindings
  Box box;
};

struct MovePlan {
  std::vector<Transfer> transfers;         ///< in-loop, ordered by step
  std::vector<std::vector<Box>> end_owned; ///< [array] boxes, with end_owner
  std::vector<std::vector<int>> end_owner;
  std::vector<int> box_arrays;  ///< arrays moved as boxes
  std::vector<int> diff_arrays; ///< written arrays synced by difference
};

/// `skewed_keys`: the schedule's fields are skewed keys, so no array's blocks follow them (every
/// written array is synced by difference).
MovePlan plan_moves(const codegen::LoopSpec& spec, const std::vector<ArrayBinding>& arrays,
                    const std::vector<int>& spec_index, const Schedule& s, bool skewed_keys) {
  MovePlan plan;
  const int steps = static_cast<int>(s.steps.size());
  plan.end_owned.resize(arrays.size());
  plan.end_owner.resize(arrays.size());
  for (std::size_t ai = 0; ai < arrays.size(); ++ai) {
    const int si = spec_index[ai];
    const codegen::ArraySpec& as = spec.arrays[si];
    if (!as.written || as.role == codegen::Role::replicated) {
      continue;
    }
    if (skewed_keys || !follows_fields(spec, si, s)) {
      plan.diff_arrays.push_back(static_cast<int>(ai));
      continue;
    }
    plan.box_arrays.push_back(static_cast<int>(ai));
    std::vector<std::vector<Box>> fp(steps);
    for (int st = 0; st < steps; ++st) {
      fp[st].resize(s.workers);
      for (int w = 0; w < s.workers; ++w) {
        const int cell = s.steps[st][w];
        if (cell >= 0) {
          fp[st][w] = footprint(spec, si, arrays[ai], s, cell);
        }
      }
    }
    // after a cell runs, what it holds goes to the ranks of the next cells that touch it
    for (int st = 0; st < steps; ++st) {
      for (int w = 0; w < s.workers; ++w) {
        if (s.steps[st][w] < 0 || fp[st][w].empty()) {
          continue;
        }
        Region remaining{fp[st][w]};
        for (int v = 0; v < w; ++v) { // shared with a lower worker of the same step: it sends
          if (s.steps[st][v] >= 0 && !fp[st][v].empty()) {
            remaining = subtract(remaining, fp[st][v]);
          }
        }
        const int from = s.rank_of_worker(w);
        for (int later = st + 1; later < steps && !remaining.empty(); ++later) {
          std::vector<int> hit;
          for (int x = 0; x < s.workers; ++x) {
            if (s.steps[later][x] < 0 || fp[later][x].empty()) {
              continue;
            }
            Region part = intersect(remaining, fp[later][x]);
            if (part.empty()) {
              continue;
            }
            hit.push_back(x);
            const int to = s.rank_of_worker(x);
            if (to != from) {
              for (Box& b : part) {
                plan.transfers.push_back(Transfer{st, later, from, to, static_cast<int>(ai), b});
              }
            }
          }
          for (int x : hit) {
            remaining = subtract(remaining, fp[later][x]);
          }
        }
      }
    }
    // at the end, each element comes from the rank of the last cell that touched it
    Region claimed;
    for (int st = steps - 1; st >= 0; --st) {
      for (int w = 0; w < s.workers; ++w) {
        if (s.steps[st][w] < 0 || fp[st][w].empty()) {
          continue;
        }
        Region mine{fp[st][w]};
        for (const Box& c : claimed) {
          mine = subtract(mine, c);
        }
        for (Box& b : mine) {
          plan.end_owned[ai].push_back(b);
          plan.end_owner[ai].push_back(s.rank_of_worker(w));
        }
        claimed.push_back(fp[st][w]);
      }
    }
  }
  std::stable_sort(
      plan.transfers.begin(), plan.transfers.end(),
      [](const Transfer& a, const Transfer& b) { return a.after_step < b.after_step; });
  return plan;
}

std::size_t box_bytes(const Box& b, const ArrayBinding& a) {
  return static_cast<std::size_t>(b.volume()) * a.elem_bytes;
}

/// Reused message buffers: fresh large buffers cost a page fault per 4 KiB on every loop.
class BufferPool {
public:
  std::vector<char> take(std::size_t bytes) {
    std::vector<char> v;
    if (!free_.empty()) {
      v = std::move(free_.back());
      free_.pop_back();
    }
    v.resize(bytes);
    return v;
  }
  void give(std::vector<char>&& v) {
    if (v.capacity() > 0 && free_.size() < 64) {
      free_.push_back(std::move(v));
    }
  }

private:
  std::vector<std::vector<char>> free_;
};

BufferPool& buffer_pool() {
  static BufferPool pool;
  return pool;
}

struct CommStats {
  double transfer_s = 0; ///< from posting a batch to seeing it complete
  double exposed_s = 0;  ///< of that, time the rank waited with no cell running
  std::size_t bytes = 0;
};

/// Moves blocks between ranks: the transfers after a step are posted at once (packed copies),
/// and their receives are completed only before the step that first needs them, so they travel
/// while the workers compute. The calling thread drives MPI progress (poll()) meanwhile.
class Mover {
public:
  Mover(const MovePlan& plan, std::vector<ArrayBinding>& arrays, CommStats& stats)
      : plan_(plan), arrays_(arrays), stats_(stats) {}

  /// Posts the transfers produced by step `st`.
  void post(int st) {
    Comm& c = comm();
    const int me = c.rank(), ranks = c.size();
    Batch b;
    b.needed_by = INT32_MAX;
    b.in.resize(ranks);
    std::vector<std::vector<const Transfer*>> out(ranks);
    while (cursor_ < plan_.transfers.size() && plan_.transfers[cursor_].after_step == st) {
      const Transfer& t = plan_.transfers[cursor_++];
      if (t.from == me) {
        out[t.to].push_back(&t);
      } else if (t.to == me) {
        b.in[t.from].push_back(&t);
        b.needed_by = std::min(b.needed_by, t.needed_by);
      }
    }
    const int tag = st % 30000;
    b.recv_buf.resize(ranks);
    for (int r = 0; r < ranks; ++r) {
      std::size_t bytes = 0;
      for (const Transfer* t : b.in[r]) {
        bytes += box_bytes(t->box, arrays_[t->array]);
      }
      if (bytes) {
        b.recv_buf[r] = buffer_pool().take(bytes);
        b.recvs.push_back(c.irecv(b.recv_buf[r].data(), bytes, r, tag));
      }
    }
    for (int r = 0; r < ranks; ++r) {
      std::size_t bytes = 0;
      for (const Transfer* t : out[r]) {
        bytes += box_bytes(t->box, arrays_[t->array]);
      }
      if (!bytes) {
        continue;
      }
      sends_.emplace_back();
      Send& snd = sends_.back();
      snd.buffer = buffer_pool().take(bytes);
      std::size_t off = 0;
      for (const Transfer* t : out[r]) {
        const ArrayBinding& a = arrays_[t->array];
        off += pack_box(a.data, a.shape, a.elem_bytes, t->box, snd.buffer.data() + off);
      }
      stats_.bytes += bytes;
      snd.request.push_back(c.isend(snd.buffer.data(), bytes, r, tag));
    }
    if (!b.recvs.empty()) {
      b.posted = Clock::now();
      batches_.push_back(std::move(b));
    }
  }

  /// Completes and applies every receive needed before step `st` runs.
  void complete_needed(int st) {
    for (Batch& b : batches_) {
      if (!b.applied && b.needed_by <= st) {
        finish(b);
      }
    }
    prune();
  }

  /// Lets MPI progress pending transfers (called while workers compute); returns whether any
  /// receive or send is still in flight.
  bool poll() {
    Comm& c = comm();
    bool in_flight = false;
    for (Batch& b : batches_) {
      if (!b.arrived && c.test_all(b.recvs)) {
        b.arrived = true;
        stats_.transfer_s += std::chrono::duration<double>(Clock::now() - b.posted).count();
      }
      in_flight = in_flight || !b.arrived;
    }
    for (Send& snd : sends_) {
      in_flight = !c.test_all(snd.request) || in_flight;
    }
    return in_flight;
  }
  bool idle() const { return batches_.empty() && sends_.empty(); }

  void complete_all() {
    for (Batch& b : batches_) {
      if (!b.applied) {
        finish(b);
      }
    }
    batches_.clear();
    for (Send& snd : sends_) {
      comm().wait_all(snd.request);
      buffer_pool().give(std::move(snd.buffer));
    }
    sends_.clear();
  }

private:
  struct Batch {
    int needed_by = 0;
    std::vector<std::vector<const Transfer*>> in;
    std::vector<std::vector<char>> recv_buf;
    std::vector<Comm::Request> recvs;
    Clock::time_point posted;
    bool arrived = false, applied = false;
  };
  struct Send {
    std::vector<char> buffer;
    std::vector<Comm::Request> request;
  };

  void finish(Batch& b) {
    if (!b.arrived) {
      const auto t = Clock::now();
      comm().wait_all(b.recvs);
      const auto done = Clock::now();
      stats_.exposed_s += std::chrono::duration<double>(done - t).count();
      stats_.transfer_s += std::chrono::duration<double>(done - b.posted).count();
      b.arrived = true;
    }
    for (std::size_t r = 0; r < b.in.size(); ++r) {
      std::size_t off = 0;
      for (const Transfer* t : b.in[r]) {
        ArrayBinding& a = arrays_[t->array];
        off += unpack_box(a.data, a.shape, a.elem_bytes, t->box, b.recv_buf[r].data() + off);
      }
    }
    b.applied = true;
    for (auto& buf : b.recv_buf) {
      buffer_pool().give(std::move(buf));
    }
  }
  void prune() {
    batches_.erase(
        std::remove_if(batches_.begin(), batches_.end(), [](const Batch& b) { return b.applied; }),
        batches_.end());
    while (!sends_.empty() && sends_.front().request.empty()) {
      buffer_pool().give(std::move(sends_.front().buffer));
      sends_.pop_front();
    }
  }

  const MovePlan& plan_;
  std::vector<ArrayBinding>& arrays_;
  CommStats& stats_;
  std::size_t cursor_ = 0;
  std::vector<Batch> batches_;
  std::deque<Send> sends_;
};

/// The address of `box` in array `a` when its elements are one contiguous range (every
/// dimension after the first is whole), else null.
char* contiguous_range(const ArrayBinding& a, const Box& box) {
  std::size_t row = a.elem_bytes;
  for (std::size_t d = 1; d < a.shape.size(); ++d) {
    if (box.lo[d] != 0 || box.hi[d] != a.shape[d]) {
      return nullptr;
    }
    row *= static_cast<std::size_t>(a.shape[d]);
  }
  return a.data + static_cast<std::size_t>(box.lo[0]) * row;
}

/// Posts a send or receive of `bytes` at `data` in pieces below MPI's int count (matched in
/// order: both sides post the same boxes in the same order).
void post_range(std::vector<Comm::Request>& reqs, char* data, std::size_t bytes, int peer,
                bool send) {
  constexpr std::size_t piece = std::size_t{1} << 30;
  constexpr int tag = 31002;
  for (std::size_t off = 0; off < bytes; off += piece) {
    const std::size_t len = std::min(piece, bytes - off);
    reqs.push_back(send ? comm().isend(data + off, len, peer, tag)
                        : comm().irecv(data + off, len, peer, tag));
  }
}

/// Makes every rank's copy of the box-moved arrays whole: the rank of the last cell that
/// touched a box sends it to every other rank, point to point, straight from and into the
/// arrays when the box is a contiguous range (row blocks); other boxes go through a packed copy.
void end_sync(const MovePlan& plan, std::vector<ArrayBinding>& arrays) {
  Comm& c = comm();
  const int me = c.rank(), ranks = c.size();
  std::vector<Comm::Request> reqs;
  struct Staged {
    int array = 0;
    const Box* box = nullptr;
    std::vector<char> bytes;
  };
  std::deque<Staged> staged; // stable addresses while requests are in flight
  for (int ai : plan.box_arrays) {
    ArrayBinding& a = arrays[ai];
    for (std::size_t k = 0; k < plan.end_owned[ai].size(); ++k) {
      const Box& box = plan.end_owned[ai][k];
      const int owner = plan.end_owner[ai][k];
      const std::size_t bytes = box_bytes(box, a);
      if (bytes == 0) {
        continue;
      }
      char* direct = contiguous_range(a, box);
      if (owner == me) {
        char* from = direct;
        if (!from) {
          staged.push_back(Staged{ai, &box, buffer_pool().take(bytes)});
          pack_box(a.data, a.shape, a.elem_bytes, box, staged.back().bytes.data());
          from = staged.back().bytes.data();
          staged.back().box = nullptr; // sent, nothing to unpack
        }
        for (int r = 0; r < ranks; ++r) {
          if (r != me) {
            post_range(reqs, from, bytes, r, true);
          }
        }
      } else if (direct) {
        post_range(reqs, direct, bytes, owner, false);
      } else {
        staged.push_back(Staged{ai, &box, buffer_pool().take(bytes)});
        post_range(reqs, staged.back().bytes.data(), bytes, owner, false);
      }
    }
  }
  c.wait_all(reqs);
  for (Staged& st : staged) {
    if (st.box) {
      ArrayBinding& a = arrays[st.array];
      unpack_box(a.data, a.shape, a.elem_bytes, *st.box, st.bytes.data());
    }
    buffer_pool().give(std::move(st.bytes));
  }
}

/// Written arrays whose blocks do not follow the partition: every rank sends the elements it
/// changed (compared with a snapshot from before the loop); applied in rank order.
void diff_sync(const std::vector<int>& diff_arrays, std::vector<ArrayBinding>& arrays,
               const std::vector<std::vector<char>>& snapshots) {
  Comm& c = comm();
  for (std::size_t k = 0; k < diff_arrays.size(); ++k) {
    ArrayBinding& a = arrays[diff_arrays[k]];
    const std::vector<char>& before = snapshots[k];
    std::vector<char> mine;
    const std::size_t n = before.size() / a.elem_bytes;
    for (std::size_t i = 0; i < n; ++i) {
      const char* now = a.data + i * a.elem_bytes;
      if (std::memcmp(now, before.data() + i * a.elem_bytes, a.elem_bytes) != 0) {
        std::uint64_t idx = i;
        const char* ip = reinterpret_cast<const char*>(&idx);
        mine.insert(mine.end(), ip, ip + sizeof idx);
        mine.insert(mine.end(), now, now + a.elem_bytes);
      }
    }
    std::vector<std::size_t> offsets;
    std::vector<char> all = c.allgatherv(mine.data(), mine.size(), offsets);
    for (int r = 0; r < c.size(); ++r) {
      if (r == c.rank()) {
        continue;
      }
      for (std::size_t off = offsets[r]; off < offsets[r + 1];
           off += sizeof(std::uint64_t) + a.elem_bytes) {
        std::uint64_t idx = 0;
        std::memcpy(&idx, all.data() + off, sizeof idx);
        std::memcpy(a.data + idx * a.elem_bytes, all.data() + off + sizeof idx, a.elem_bytes);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Index spaces in a skewed (unimodular) order: the points become records of a list.

class PointList final : public SpaceAccess {
public:
  explicit PointList(std::vector<std::int64_t> extents) : extents_(std::move(extents)) {
    std::size_t n = 1;
    for (auto e : extents_) {
      n *= static_cast<std::size_t>(e);
    }
    points_.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      points_[i] = i;
    }
  }
  bool is_index_space() const override { return false; }
  int key_count() const override { return static_cast<int>(extents_.size()); }
  const void* identity() const override { return this; }
  std::size_t local_count() const override { return points_.size(); }
  void keys(std::size_t i, std::int64_t* out) const override {
    std::size_t p = points_[i];
    for (int d = key_count() - 1; d >= 0; --d) {
      out[d] = static_cast<std::int64_t>(p % static_cast<std::size_t>(extents_[d]));
      p /= static_cast<std::size_t>(extents_[d]);
    }
  }
  std::size_t record_bytes() const override { return sizeof(std::size_t); }
  char* record_data() override { return reinterpret_cast<char*>(points_.data()); }
  std::vector<std::uint64_t>& ids() override { return ids_; }
  const std::size_t* points() const { return points_.data(); }

private:
  std::vector<std::int64_t> extents_;
  std::vector<std::size_t> points_;
  std::vector<std::uint64_t> ids_;
};

/// --rotor-validate over an index space: appends the points of step `st`'s cells to `out` as
/// linear indices, worker by worker (rank by rank, slot by slot): a box per cell, or the cell's
/// segment of `points` in a skewed order.
void append_step_points(std::vector<std::uint64_t>& out, const Schedule& sched, std::size_t st,
                        int workers, const std::vector<std::int64_t>& ext,
                        const RecordLayout* layout, const PointList* points) {
  for (int w = 0; w < workers; ++w) {
    const int cell = sched.steps[st][w];
    if (cell < 0) {
      continue;
    }
    if (points != nullptr) {
      out.insert(out.end(), points->points() + layout->seg_begin[cell],
                 points->points() + layout->seg_end[cell]);
      continue;
    }
    std::vector<std::int64_t> lo(ext.size(), 0), hi(ext);
    for (int j = 0; j < sched.fields(); ++j) {
      const int b = sched.coordinate(cell, j);
      lo[sched.field_keys[j]] = sched.block_first(j, b);
      hi[sched.field_keys[j]] = sched.block_end(j, b);
    }
    bool empty = false;
    for (std::size_t d = 0; d < ext.size(); ++d) {
      empty = empty || lo[d] >= hi[d];
    }
    for (std::vector<std::int64_t> p = lo; !empty;) { // row-major, like run_box
      std::uint64_t linear = 0;
      for (std::size_t d = 0; d < ext.size(); ++d) {
        linear = linear * static_cast<std::uint64_t>(ext[d]) + static_cast<std::uint64_t>(p[d]);
      }
      out.push_back(linear);
      std::size_t d = ext.size();
      while (d > 0 && ++p[d - 1] == hi[d - 1]) {
        p[d - 1] = lo[d - 1];
        --d;
      }
      empty = d == 0; // wrapped around: the box is done
    }
  }
}

// ---------------------------------------------------------------------------------------------

enum class Mode { serial, threads, distributed };

Mode mode_of(const ExecutionInfo& info) {
  if (info.mode.rfind("serial", 0) == 0) {
    return Mode::serial;
  }
  if (info.mode.rfind("threads", 0) == 0) {
    return Mode::threads;
  }
  return Mode::distributed;
}

std::vector<int> partition_fields(const codegen::LoopSpec& spec, const SpaceAccess& space) {
  std::vector<int> f = spec.fields;
  Kind kind = spec.kind == Kind::unimodular ? spec.base : spec.kind;
  if (f.empty() && space.is_index_space() &&
      (kind == Kind::independent || kind == Kind::data_parallel || kind == Kind::one_d)) {
    f.push_back(0); // dense points: split the first dimension
  }
  if (kind == Kind::independent || kind == Kind::data_parallel || kind == Kind::one_d) {
    if (f.size() > 1) {
      f.resize(1);
    }
  }
  return f;
}

/// A unimodular plan over records runs across ranks: the records move to the rank of their cell
/// of the skewed keys. A cell's footprint is not a box of the arrays, so the written arrays are
/// synced by difference (exact: in one step each changed element has one writer): base one_d
/// once at the end (every conflict has the same first skewed key, so no other cell reads what a
/// cell writes), base wavefront or rotation after every step (later cells read what earlier
/// steps wrote). Dense index spaces keep every rank running the whole loop on its threads.
bool distributes_skewed(const codegen::LoopSpec& spec, const SpaceAccess& space) {
  return spec.kind == Kind::unimodular && !space.is_index_space() && !spec.matrix.empty() &&
         (spec.base == Kind::one_d || spec.base == Kind::wavefront || spec.base == Kind::rotation);
}

/// Makes a distributed dataset whole on every rank (serial and skewed runs).
void replicate(SpaceAccess& space) {
  Comm& c = comm();
  if (space.is_index_space() || !space.distributed()) {
    return;
  }
  if (c.size() == 1) {
    space.resize_local(space.local_count(), false);
    return;
  }
  std::vector<std::uint32_t>* origin = space.origin();
  std::int64_t with_origin = origin && !origin->empty() ? 1 : 0;
  c.allreduce_max(&with_origin, 1);
  if (with_origin) {
    std::vector<std::size_t> o_offs;
    std::vector<char> o = c.allgatherv(origin->data(), origin->size() * 4, o_offs);
    origin->resize(o.size() / 4);
    std::memcpy(origin->data(), o.data(), o.size());
  }
  std::vector<std::size_t> offs;
  std::vector<char> all =
      c.allgatherv(space.record_data(), space.local_count() * space.record_bytes(), offs);
  std::vector<std::uint64_t> ids;
  if (!space.ids().empty()) {
    std::vector<std::size_t> id_offs;
    std::vector<char> id_bytes =
        c.allgatherv(space.ids().data(), space.ids().size() * sizeof(std::uint64_t), id_offs);
    ids.resize(id_bytes.size() / sizeof(std::uint64_t));
    std::memcpy(ids.data(), id_bytes.data(), id_bytes.size());
  }
  space.replace(std::move(all), std::move(ids), false);
}

/// Puts the records back in the dataset's order (serial loops) when a parallel loop reordered
/// them: record i goes to position origin[i], in place (swaps along cycles).
void restore_order(SpaceAccess& space) {
  std::vector<std::uint32_t>* origin = space.origin();
  if (!origin || origin->empty()) {
    return;
  }
  const std::size_t n = space.local_count(), rb = space.record_bytes();
  std::vector<std::uint32_t>& o = *origin;
  if (o.size() != n) {
    throw std::logic_error("rotor: internal: record positions do not match the records");
  }
  std::vector<bool> seen(n, false);
  for (std::uint32_t p : o) {
    if (p >= n || seen[p]) {
      throw std::logic_error("rotor: internal: record positions are not a permutation");
    }
    seen[p] = true;
  }
  char* recs = space.record_data();
  auto& ids = space.ids();
  const bool with_ids = ids.size() == n;
  std::vector<char> tmp(rb);
  for (std::size_t i = 0; i < n; ++i) {
    while (o[i] != i) {
      const std::size_t j = o[i];
      std::memcpy(tmp.data(), recs + j * rb, rb);
      std::memcpy(recs + j * rb, recs + i * rb, rb);
      std::memcpy(recs + i * rb, tmp.data(), rb);
      if (with_ids) {
        std::swap(ids[i], ids[j]);
      }
      std::swap(o[i], o[j]);
    }
  }
  o = std::vector<std::uint32_t>();
  if (std::uint64_t* version = space.version()) {
    ++*version; // cached layouts no longer match the order
  }
}

/// Runs `fn(slot)` for the slots in `active` concurrently in the session's arena.
template <class Fn> void run_slots(const std::vector<int>& active, Fn&& fn) {
  if (active.size() == 1) {
    fn(active[0]);
    return;
  }
  if (active.empty()) {
    return;
  }
  arena_run(active.size(), [&](std::size_t i) { fn(active[i]); });
}

/// Like run_slots, but the slots run on the arena's worker threads while this thread drives MPI
/// progress: `poll()` advances the transfers in flight and returns whether any still are. It is
/// called with a backoff (50 us doubling to 2 ms), because on a full machine every wake-up of
/// this thread takes a core from a worker (a 20 us poll halved np 2 throughput on 2 cores); once
/// nothing is in flight, this thread sleeps until the slots are done.
template <class Fn, class Poll>
void run_slots_polling(const std::vector<int>& active, Fn&& fn, Poll&& poll) {
  std::mutex m;
  std::condition_variable done;
  int remaining = static_cast<int>(active.size());
  std::exception_ptr error;
  const auto body = [&](std::size_t i) { // joined by the mutex m, which TSan sees (Arena.h)
    std::exception_ptr e;
    try {
      fn(active[i]);
    } catch (...) {
      e = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(m);
    if (e && !error) {
      error = e;
    }
    if (--remaining == 0) {
      done.notify_one();
    }
  };
  arena_enqueue(active.size(), SlotBody(body));
  constexpr auto first = std::chrono::microseconds(50), longest = std::chrono::microseconds(2000);
  auto interval = first;
  bool in_flight = true;
  std::unique_lock<std::mutex> lock(m);
  while (remaining > 0) {
    if (!in_flight) {
      done.wait(lock, [&] { return remaining == 0; });
      break;
    }
    lock.unlock();
    in_flight = poll();
    lock.lock();
    if (in_flight) {
      done.wait_for(lock, interval, [&] { return remaining == 0; });
      interval = std::min(interval * 2, longest);
    }
  }
  if (error) {
    std::rethrow_exception(error);
  }
}

} // namespace

// ---------------------------------------------------------------------------------------------

LoopStats& last_stats() {
  static LoopStats stats;
  return stats;
}

int session_rank() {
  return comm().rank();
}
int session_ranks() {
  return comm().size();
}
int session_threads() {
  return session_state().threads;
}
void allreduce_sum_elements(void* values, std::size_t count, ElementType element_type) {
  comm().allreduce_sum_typed(values, count, element_type);
}
std::vector<char> allgather_bytes(const void* data, std::size_t bytes,
                                  std::vector<std::size_t>& offsets) {
  return comm().allgatherv(data, bytes, offsets);
}
void abort_if_distributed(const char* message) {
  if (comm().size() > 1) {
    comm().abort(message);
  }
}
void note(const std::string& message) {
  if (comm().rank() == 0 && !quiet()) {
    std::fprintf(stderr, "%s\n", message.c_str());
  }
}

ExecutionInfo plan_execution(const codegen::LoopSpec& spec, SpaceAccess& space, bool arrays_alias) {
  for (int f : spec.fields) {
    if (f < 0 || f >= space.key_count()) {
      throw std::invalid_argument("rotor: the loop at " + where(spec) + ": partition field " +
                                  std::to_string(f) + " is not one of the " +
                                  std::to_string(space.key_count()) + " keys");
    }
  }
  ExecutionInfo info;
  const int threads = session_state().threads;
  Kind kind = spec.kind;
  std::vector<int> fields = partition_fields(spec, space);
  const bool needs_fields = kind == Kind::one_d || kind == Kind::rotation ||
                            kind == Kind::wavefront || kind == Kind::unimodular;
  if (arrays_alias) {
    note("rotor: " + where(spec) + ": two bound arrays are the same object; running serially");
    kind = Kind::serial;
  } else if (needs_fields && fields.empty()) {
    note("rotor: " + where(spec) + ": plan " + kind_name(kind) +
         " without partition fields; running serially");
    kind = Kind::serial;
  }
  if (kind == Kind::serial) {
    info.slots = 1;
    info.redundant = true;
    info.mode = "serial";
  } else if (kind == Kind::unimodular && !distributes_skewed(spec, space)) {
    info.slots = threads;
    info.redundant = true;
    info.mode = "threads";
  } else {
    info.slots = threads;
    info.redundant = false;
    info.mode = "distributed";
  }
  return info;
}

void execute(const codegen::LoopSpec& spec, SpaceAccess& space, std::vector<ArrayBinding>& arrays,
             const std::vector<int>& spec_index, const std::vector<const void*>& private_arrays,
             CellRunner& runner, const ExecutionInfo& info) {
  (void)private_arrays;
  Comm& c = comm();
  const auto t0 = Clock::now();
  const Mode mode = mode_of(info);
  const int threads = info.slots;
  const bool want_order = order_wanted() && !space.is_index_space();
  std::string summary;
  LoopProbe& probe = loop_probe();
  probe.begin(spec, info, space);

  if (mode == Mode::serial) {
    const auto g0 = probe.now();
    replicate(space);
    if (!space.is_index_space()) {
      restore_order(space);
    }
    probe.rank_phase(SpanKind::layout, g0, probe.now());
    if (want_order) {
      space.ensure_ids();
    }
    if (space.is_index_space()) {
      std::vector<std::int64_t> ext = space.extents();
      std::vector<std::int64_t> lo(ext.size(), 0);
      const auto c0 = probe.now();
      runner.run_box(0, lo.data(), ext.data());
      probe.cell(0, 0, c0, probe.now(), points_in_box(lo, ext));
    } else {
      const auto c0 = probe.now();
      probe.run_records(runner, 0, 0, space.local_count());
      probe.cell(0, 0, c0, probe.now(), space.local_count());
      if (want_order) {
        record_loop_order(space.identity(), spec.file, spec.line, space.ids());
      }
    }
    summary = "serial on every rank" + std::string(*spec.reason ? " (" : "") + spec.reason +
              (*spec.reason ? ")" : "");
  } else {
    const bool skewed = mode == Mode::threads;
    LayoutRequest req;
    req.spec = &spec;
    const bool skewed_keys = distributes_skewed(spec, space) && !skewed;
    req.kind = skewed || skewed_keys ? spec.base : spec.kind;
    if (skewed && req.kind == Kind::unimodular) {
      req.kind = Kind::serial;
    }
    req.field_keys = partition_fields(spec, space);
    if (!space.is_index_space() && !skewed && !spec.ordered &&
        (req.kind == Kind::independent || req.kind == Kind::data_parallel)) {
      // valid in any record order and distribution: the records stay as an earlier loop laid
      // them out (no relayout when plans alternate over one dataset); each rank's threads split
      // its records, and written arrays are synced by difference
      req.field_keys.clear();
    }
    req.threads = threads;
    req.ranks = skewed ? 1 : c.size();
    req.rank = skewed ? 0 : c.rank();
    req.workers = req.ranks * threads;
    req.ordered = spec.ordered || skewed || req.kind == Kind::wavefront;
    req.matrix = skewed || skewed_keys ? &spec.matrix : nullptr;
    if (req.kind == Kind::serial) { // skewed serial base: one worker, skewed order
      req.kind = Kind::one_d;
      req.workers = 1;
    }
    const auto g0 = probe.now();
    if (skewed) {
      replicate(space);
    }
    if (want_order) {
      space.ensure_ids();
    }

    std::unique_ptr<PointList> points;
    SpaceAccess* records = &space;
    if (space.is_index_space() && skewed) {
      points = std::make_unique<PointList>(space.extents());
      records = points.get();
    }
    const bool boxes = space.is_index_space() && !skewed;
    Schedule sched;
    const RecordLayout* layout = nullptr;
    if (boxes) {
      sched = index_schedule(req, space.extents());
    } else {
      layout = &record_layout(req, *records);
      sched = layout->schedule;
      probe.set_local_records(records->local_count());
    }
    probe.rank_phase(SpanKind::layout, g0, probe.now());

    const bool move = req.ranks > 1;
    MovePlan moves;
    std::vector<std::vector<char>> snapshots;
    if (move) {
      moves = plan_moves(spec, arrays, spec_index, sched, skewed_keys);
      for (int ai : moves.diff_arrays) {
        const ArrayBinding& a = arrays[ai];
        std::size_t n = a.elem_bytes;
        for (auto e : a.shape) {
          n *= static_cast<std::size_t>(e);
        }
        snapshots.emplace_back(a.data, a.data + n);
      }
    }

    // the access check's allowed boxes per cell; DistArray asks only in code compiled with
    // ROTOR_CHECK_ACCESS, so the guard costs one thread-local store per cell otherwise
    const bool checking = true;
    auto checks_for = [&](int cell) {
      std::vector<ArrayCheck> out;
      for (std::size_t ai = 0; ai < arrays.size(); ++ai) {
        ArrayCheck ch;
        ch.identity = arrays[ai].identity;
        ch.name = arrays[ai].name;
        ch.shape = arrays[ai].shape;
        const int si = spec_index[ai];
        if (!skewed && !skewed_keys && spec.arrays[si].role != codegen::Role::replicated &&
            follows_fields(spec, si, sched)) {
          ch.allowed = footprint(spec, si, arrays[ai], sched, cell);
        }
        out.push_back(std::move(ch));
      }
      return out;
    };

    CommStats stats;
    Mover mover(moves, arrays, stats);
    const auto t_layout = Clock::now();
    const double layout_s = std::chrono::duration<double>(t_layout - t0).count();
    std::vector<std::uint64_t>* point_order = // --rotor-validate over an index space
        space.is_index_space() ? validation_sink() : nullptr;
    if (point_order != nullptr) {
      point_order->clear();
    }
    std::vector<std::uint64_t> my_order;  // ids in (step, slot) order
    std::vector<std::uint64_t> my_counts; // per (step, slot)
    const int first_worker = req.rank * threads;
    std::exception_ptr error;
    for (std::size_t st = 0; st < sched.steps.size(); ++st) {
      std::vector<int> active;
      for (int t = 0; t < threads; ++t) {
        if (sched.steps[st][first_worker + t] >= 0) {
          active.push_back(t);
        }
      }
      if (move) {
        const auto r0 = probe.now();
        mover.complete_needed(static_cast<int>(st));
        probe.rank_phase(SpanKind::recv, r0, probe.now());
      }
      probe.step_begin();
      auto run_cell = [&](int t) {
        const int cell = sched.steps[st][first_worker + t];
        const auto c0 = probe.now();
        std::uint64_t count = 0;
        CellGuard guard(spec, checking ? checks_for(cell) : std::vector<ArrayCheck>{},
                        first_worker + t, static_cast<int>(st));
        GuardScope scope(checking ? &guard : nullptr);
        if (boxes) {
          std::vector<std::int64_t> ext = space.extents();
          std::vector<std::int64_t> lo(ext.size(), 0), hi(ext);
          for (int j = 0; j < sched.fields(); ++j) {
            const int b = sched.coordinate(cell, j);
            lo[sched.field_keys[j]] = sched.block_first(j, b);
            hi[sched.field_keys[j]] = sched.block_end(j, b);
          }
          runner.run_box(t, lo.data(), hi.data());
          count = points_in_box(lo, hi);
        } else if (points) {
          count = layout->seg_end[cell] - layout->seg_begin[cell];
          probe.run_list(runner, t, points->points() + layout->seg_begin[cell], count);
        } else {
          count = layout->seg_end[cell] - layout->seg_begin[cell];
          probe.run_records(runner, t, layout->seg_begin[cell], layout->seg_end[cell]);
        }
        runner.cell_finished(t);
        probe.cell(t, sched.fields() ? sched.coordinate(cell, sched.fields() - 1) : cell, c0,
                   probe.now(), count);
      };
      try {
        if (move && !mover.idle()) {
          run_slots_polling(active, run_cell, [&] { return mover.poll(); });
        } else {
          run_slots(active, run_cell);
        }
      } catch (...) {
        error = std::current_exception();
      }
      if (error) {
        if (c.size() > 1) {
          std::string msg = "rotor: the loop failed";
          try {
            std::rethrow_exception(error);
          } catch (const std::exception& e) {
            msg = e.what();
          } catch (...) {
          }
          c.abort(msg.c_str());
        }
        std::rethrow_exception(error);
      }
      probe.step_end();
      if (move && skewed_keys && spec.base != Kind::one_d && st + 1 < sched.steps.size()) {
        const auto d0 = probe.now();
        diff_sync(moves.diff_arrays, arrays, snapshots);
        for (std::size_t k = 0; k < moves.diff_arrays.size(); ++k) {
          const ArrayBinding& a = arrays[moves.diff_arrays[k]];
          std::memcpy(snapshots[k].data(), a.data, snapshots[k].size());
        }
        probe.rank_phase(SpanKind::sync, d0, probe.now());
      }
      if (point_order != nullptr) {
        append_step_points(*point_order, sched, st, req.workers, space.extents(), layout,
                           points.get());
      }
      if (want_order) {
        for (int t = 0; t < threads; ++t) {
          const int cell = sched.steps[st][first_worker + t];
          std::size_t cnt = 0;
          if (cell >= 0 && layout) {
            for (std::size_t i = layout->seg_begin[cell]; i < layout->seg_end[cell]; ++i) {
              my_order.push_back(space.ids()[i]);
            }
            cnt = layout->seg_end[cell] - layout->seg_begin[cell];
          }
          my_counts.push_back(cnt);
        }
      }
      if (move) {
        const auto s0 = probe.now();
        const std::size_t sent = stats.bytes;
        mover.post(static_cast<int>(st));
        probe.rank_phase(SpanKind::send, s0, probe.now(),
                         static_cast<std::int64_t>(stats.bytes - sent));
      }
      runner.step_finished(); // after the posts: a merge's collective never blocks a step's data
    }
    const auto t_steps = Clock::now();
    if (move) {
      const auto e0 = probe.now();
      mover.complete_all();
      end_sync(moves, arrays);
      diff_sync(moves.diff_arrays, arrays, snapshots);
      probe.rank_phase(SpanKind::sync, e0, probe.now());
    }
    const double sync_s = std::chrono::duration<double>(Clock::now() - t_steps).count();
    const double steps_s = std::chrono::duration<double>(t_steps - t_layout).count();
    if (want_order) {
      std::vector<std::uint64_t> global;
      if (req.ranks == 1) {
        global = my_order;
      } else {
        std::vector<std::uint64_t> mine = my_counts;
        mine.insert(mine.end(), my_order.begin(), my_order.end());
        std::vector<std::size_t> offs;
        std::vector<char> all = c.allgatherv(mine.data(), mine.size() * 8, offs);
        const std::size_t steps = sched.steps.size();
        std::vector<std::size_t> cursor_r(c.size());
        for (int r = 0; r < c.size(); ++r) {
          cursor_r[r] = offs[r] / 8 + steps * threads;
        }
        const auto* words = reinterpret_cast<const std::uint64_t*>(all.data());
        for (std::size_t st = 0; st < steps; ++st) {
          for (int r = 0; r < c.size(); ++r) {
            for (int t = 0; t < threads; ++t) {
              const std::uint64_t cnt = words[offs[r] / 8 + st * threads + t];
              global.insert(global.end(), words + cursor_r[r], words + cursor_r[r] + cnt);
              cursor_r[r] += cnt;
            }
          }
        }
      }
      record_loop_order(space.identity(), spec.file, spec.line, std::move(global));
    }
    std::ostringstream s;
    s << kind_name(req.kind) << (skewed ? " (skewed)" : "") << " over " << sched.steps.size()
      << " steps, " << sched.cells << " cells (layout " << layout_s << " s, steps " << steps_s
      << " s, end sync " << sync_s << " s)";
    if (move) {
      s << ", " << stats.bytes << " bytes sent in-loop, communication hidden "
        << (stats.transfer_s > 0 ? 100.0 * (1.0 - stats.exposed_s / stats.transfer_s) : 100.0)
        << "%";
    }
    last_stats() = LoopStats{stats.transfer_s, stats.exposed_s, stats.bytes};
    probe.add_bytes_moved(stats.bytes);
    summary = s.str();
  }

  if (spec.writes_records && !space.is_index_space()) {
    if (std::uint64_t* version = space.version()) {
      ++*version; // the body changed records: the next loop checks their keys
    }
  }
  probe.end_execute();
  if (session_state().settings.verbose && (c.rank() == 0 || std::getenv("ROTOR_VERBOSE_ALL")) &&
      !quiet()) {
    const double dt = std::chrono::duration<double>(Clock::now() - t0).count();
    std::fprintf(stderr, "rotor: %s: %s: %d ranks x %d threads, %s, %.3f s\n", where(spec).c_str(),
                 kind_name(spec.kind), c.size(), session_state().threads, summary.c_str(), dt);
  }
}

} // namespace rotor::detail
