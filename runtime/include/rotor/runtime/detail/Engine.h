#pragma once
/// \file
/// The type-erased engine behind rotor::codegen::run_loop. RunLoop.h (templates) adapts the
/// user's dataset, arrays and body to these interfaces; runtime/src (no templates) picks the
/// plan's executor (Engine.cpp, Executor.h), which decides the layout, the steps and the data
/// movement, and drives the workers. Not for user code.

#include "rotor/distarray/detail/ElementType.h"
#include "rotor/runtime/Codegen.h"
#include "rotor/runtime/detail/DeviceRunner.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace rotor::detail {

/// Gives the whole pages inside [from, to) back to the system (their contents are lost; they
/// read as zeros if touched again; the allocation stays valid). Returns where the released
/// pages end (`from` when none was whole), to continue from there.
char* release_pages(char* from, char* to);

/// Makes room for `n` elements in `v` without holding two copies of it: the elements move into
/// the new storage a MiB at a time and the old storage's pages go back as they are copied.
template <class T> void reserve_releasing(std::vector<T>& v, std::size_t n) {
  if (v.capacity() >= n) {
    return;
  }
  std::vector<T> next;
  next.reserve(n);
  const std::size_t step = std::max<std::size_t>(1, (std::size_t{1} << 20) / sizeof(T));
  char* released = reinterpret_cast<char*>(v.data());
  for (std::size_t at = 0; at < v.size(); at += step) {
    const std::size_t end = std::min(v.size(), at + step);
    next.insert(next.end(), v.begin() + static_cast<std::ptrdiff_t>(at),
                v.begin() + static_cast<std::ptrdiff_t>(end));
    released = release_pages(released, reinterpret_cast<char*>(v.data() + end));
  }
  v.swap(next);
}

/// One bound DistArray, as bytes.
struct ArrayBinding {
  const void* identity = nullptr; ///< the DistArray object the body sees
  char* data = nullptr;
  std::size_t elem_bytes = 0;
  ElementType element_type = ElementType::f32;
  std::vector<std::int64_t> shape;
  std::string name;
};

/// The iteration space: a Dataset (records, possibly moved between ranks) or an IndexSpace.
class SpaceAccess {
public:
  virtual ~SpaceAccess() = default;
  virtual bool is_index_space() const = 0;
  virtual int key_count() const = 0;
  /// IndexSpace: its extents.
  virtual std::vector<std::int64_t> extents() const { return {}; }
  /// Dataset: identity (the Dataset object), records on this rank, distribution.
  virtual const void* identity() const { return nullptr; }
  virtual std::size_t local_count() const { return 0; }
  virtual bool distributed() const { return false; }
  virtual void keys(std::size_t /*i*/, std::int64_t* /*out*/) const {}
  /// True when every local record in [begin, end) has key field_keys[j] in [lo[j], hi[j]) for
  /// j < fields (validating a cached layout; overridden with an inlined loop).
  virtual bool keys_in_range(std::size_t begin, std::size_t end, int fields, const int* field_keys,
                             const std::int64_t* lo, const std::int64_t* hi) const {
    std::vector<std::int64_t> k(static_cast<std::size_t>(key_count()) + 1);
    for (std::size_t i = begin; i < end; ++i) {
      keys(i, k.data());
      for (int j = 0; j < fields; ++j) {
        if (k[field_keys[j]] < lo[j] || k[field_keys[j]] >= hi[j]) {
          return false;
        }
      }
    }
    return true;
  }
  /// Key `key` of local records [begin, end) into out[0, end - begin): the layout's passes read
  /// keys a block at a time (one call per block, not one per record; overridden with an inlined
  /// loop).
  virtual void key_block(int key, std::size_t begin, std::size_t end, std::int64_t* out) const {
    std::vector<std::int64_t> k(static_cast<std::size_t>(key_count()) + 1);
    for (std::size_t i = begin; i < end; ++i) {
      keys(i, k.data());
      out[i - begin] = k[static_cast<std::size_t>(key)];
    }
  }
  /// Local records per value of key `key` (entry v: records whose key is v), as the loader
  /// counted them while it parsed this rank's records; null unless the records are still the
  /// ones it counted (Dataset's version unchanged) and it could count this key.
  virtual const std::vector<std::uint32_t>* loaded_key_counts(int /*key*/) const { return nullptr; }
  /// Frees the loader's counts (a layout moved the records: they no longer describe them).
  virtual void drop_loaded_key_counts() {}
  virtual std::size_t record_bytes() const { return 0; }
  virtual char* record_data() { return nullptr; }
  /// Record ids (empty when not kept).
  virtual std::vector<std::uint64_t>& ids() = 0;
  /// Gives every record an id (global position) if it has none.
  virtual void ensure_ids() {}
  /// Replaces this rank's records (after a move between ranks).
  virtual void replace(std::vector<char> /*bytes*/, std::vector<std::uint64_t> /*ids*/,
                       bool /*distributed*/) {}
  /// Positions of the local records in the dataset's order once the runtime reordered them
  /// (empty: they are in order); null when the space keeps none.
  /// Computes them from compact codes first where the space has codes (collective for a
  /// distributed dataset, like every layout step).
  virtual std::vector<std::uint32_t>* origin() { return nullptr; }
  /// True when the records are not in the dataset's order (positions or codes kept).
  virtual bool has_origin() const { return false; }
  /// Keeps compact origin codes instead of positions (rotor::detail::expand_origin_codes).
  virtual void set_origin_codes(std::vector<std::uint16_t> /*codes*/) {}
  /// Resizes this rank's records in place (the first min(old, n) stay; new ones are for the
  /// caller to fill through record_data()) and sets the distribution. Ids and origin untouched.
  virtual void resize_local(std::size_t /*n*/, bool /*distributed*/) {}
  /// Makes room for `n` local records (reserve_releasing: never two copies of the records).
  virtual void reserve_local(std::size_t /*n*/) {}
  /// The records' change counter (bumped by non-const access and by the runtime's moves); null
  /// when the space keeps none (cached layouts are then always checked against the keys).
  virtual std::uint64_t* version() { return nullptr; }
  /// Where the runtime caches the record layouts of loops over this space: the Dataset's own
  /// slot; other spaces keep theirs for as long as they live.
  virtual std::shared_ptr<void>& layouts() { return own_layouts_; }

private:
  std::shared_ptr<void> own_layouts_;
};

/// What workers run. `slot` is the worker's index on this rank (0 .. threads-1).
class CellRunner {
public:
  virtual ~CellRunner() = default;
  /// Dataset: local records [begin, end), in that order. Returns false to stop (serial `break`).
  virtual bool run_records(int slot, std::size_t begin, std::size_t end) = 0;
  /// IndexSpace: the points of the half-open box [lo, hi), row-major.
  virtual bool run_box(int slot, const std::int64_t* lo, const std::int64_t* hi) = 0;
  /// Dataset in a transformed (unimodular) order: the listed local records, in that order.
  virtual bool run_list(int slot, const std::size_t* indices, std::size_t count) = 0;
  /// The slot ran all of its cell (buffered arrays: its last flush).
  virtual void cell_finished(int /*slot*/) {}
  /// Every local slot finished the current step (every rank calls it once per step, in step
  /// order, from the engine's thread): buffered arrays of multi-step plans may merge here.
  virtual void step_finished() {}
  /// A step of a loop that may throw (LoopSpec::may_throw) is about to run on this process
  /// (single-process runs only; from the engine's thread): keep what undo_step puts back.
  virtual void step_starting() {}
  /// A cell of the step that started last threw; the engine undid the step's array and record
  /// changes, the runner puts back its own (reduction partials) as step_starting saw them.
  virtual void undo_step() {}
  /// The body compiled for a GPU (a `device(gpu)` loop in a translation unit nvcc compiled), or
  /// null: the loop can only run on CPU workers.
  virtual DeviceRunner* device() { return nullptr; }
};

/// Where a loop's records run on the ranks.
enum class Placement {
  every_rank,   ///< every rank runs every record on one slot (serial plans)
  rank_threads, ///< every rank runs every record on its threads (skewed orders not distributed)
  distributed,  ///< the records are split over ranks x threads
};
const char* placement_name(Placement placement);

/// How the engine runs the loop: which executor, where, on how many slots (also for the
/// template's reductions and buffered merge).
struct ExecutionInfo {
  codegen::Kind kind = codegen::Kind::serial; ///< the plan run (serial when the runtime fell back)
  Placement placement = Placement::every_rank;
  int slots = 1; ///< worker slots used on this rank
  /// The GPU executor runs the loop (a `device(gpu)` loop with a usable device: GpuExecutor.cpp).
  bool gpu = false;
  /// Every rank ran every record: no cross-rank combine of reductions or buffered arrays.
  bool redundant() const { return placement != Placement::distributed; }
};

/// Prepares the loop: decides the plan that runs, its placement and the slots on this rank.
/// `arrays_alias` forces a serial run (two bound arrays are one object).
ExecutionInfo plan_execution(const codegen::LoopSpec& spec, SpaceAccess& space, bool arrays_alias);

/// Runs the loop with the executor of `info.kind`, moving array blocks between ranks and syncing
/// written arrays at the end. Buffered arrays are not in `arrays` (the template merges them);
/// arrays[i] is spec.arrays[spec_index[i]].
void execute(const codegen::LoopSpec& spec, SpaceAccess& space, std::vector<ArrayBinding>& arrays,
             const std::vector<int>& spec_index, CellRunner& runner, const ExecutionInfo& info);

/// The loop (execute and the template's merges) is over: metrics, trace and progress bar close
/// its execution (collective when --rotor-metrics is on).
void loop_finished();

/// Communication of the last parallel loop on this rank (benchmarks, --rotor-verbose).
struct LoopStats {
  double transfer_s = 0; ///< time blocks were in flight between ranks
  double exposed_s = 0;  ///< of that, time the rank waited for them with nothing to compute
  std::size_t bytes = 0; ///< bytes this rank sent during the loop
};
LoopStats& last_stats();

/// Worker threads per rank of the session. (Other ranks are reached through one seam:
/// distarray's detail::collective() outside runtime/src, the Comm behind it inside.)
int session_threads();
/// Aborts every rank with `message` when several ranks run (an error inside a loop cannot be
/// recovered collectively); returns normally in a single process.
void abort_if_distributed(const char* message);
/// Prints a note once, on rank 0's stderr.
void note(const std::string& message);

} // namespace rotor::detail
