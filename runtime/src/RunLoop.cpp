// The body-independent half of rotor::codegen::run_loop (see rotor/runtime/detail/LoopFrame.h).

#include "CheckpointHooks.h"
#include "MemoryCheck.h"
#include "rotor/distarray/DistArray.h"
#include "rotor/runtime/detail/ChainReadRanges.h"
#include "rotor/runtime/detail/Engine.h"
#include "rotor/runtime/detail/LoopFrame.h"
#include "rotor/runtime/detail/PointerTables.h"
#include "rotor/runtime/detail/Watchdog.h"

#include "BufferedFlush.h"
#include "BufferedMerge.h"
#include "Comm.h"
#include "Executor.h"
#include "LoopFrameAccess.h"
#include "Observability.h"
#include "ScheduleSettings.h"
#include "SessionState.h"
#include "Validate.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

namespace rotor::detail {

LoopFrame::LoopFrame() = default;

namespace {

/// Prints "rotor: <what> (docs/design/containers.md, "Checked columns")" and aborts. Workers of
/// one loop can reach bad subscripts at once: the first reports and aborts, the others wait for
/// that abort, so the report is printed once.
[[noreturn]] void stop_once(const std::string& what) {
  static std::atomic<bool> reported{false};
  if (reported.exchange(true)) {
    for (;;) {
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
  }
  std::fprintf(stderr, "rotor: %s (docs/design/containers.md, \"Checked columns\")\n",
               what.c_str());
  std::fflush(stderr);
  std::abort();
}

} // namespace

void column_outside_row(const char* where, long long column, std::int64_t width) {
  stop_once(std::string(where) + ": column " + std::to_string(column) + " is outside the " +
            std::to_string(width) +
            " elements of each row Rotor staged for this loop (the row length the loop's other "
            "accesses prove); the program stops here instead of reaching into another row");
}

void index_outside_array(const char* where, long long index, std::int64_t size) {
  stop_once(std::string(where) + ": index " + std::to_string(index) + " is outside the " +
            std::to_string(size) +
            " elements of the worker's buffer of this array (the length the loop's other "
            "accesses prove); the program stops here instead of writing past the buffer");
}

LoopFrame::~LoopFrame() {
  coordinator_.reset(); // its merger thread reads the copies
  merges_.clear();
  for (std::size_t i = 0; i < copies_.size(); ++i) {
    if (copies_[i] != nullptr) {
      const ArrayOps& ops = *arrays_[i % arrays_.size()].ops;
      (sparse_ ? ops.destroy_sparse : ops.destroy)(copies_[i]);
    }
  }
}

void LoopFrame::add_array(const void* identity, const void* data, std::size_t elem_bytes,
                          ElementType element_type, const std::int64_t* shape, int rank,
                          const ArrayOps* ops) {
  Array a;
  a.binding.identity = identity;
  a.binding.data = static_cast<char*>(const_cast<void*>(data));
  a.binding.elem_bytes = elem_bytes;
  a.binding.element_type = element_type;
  a.binding.shape.assign(shape, shape + rank);
  a.ops = ops;
  arrays_.push_back(std::move(a));
}

void LoopFrame::set_sparse_capable(std::size_t array) {
  sparse_capable_.resize(arrays_.size(), false);
  sparse_capable_.at(array) = true;
}

void LoopFrame::cell_finished(int slot) const {
  if (coordinator_) {
    coordinator_->retire(slot);
  }
}

void LoopFrame::step_finished() const {
  if (coordinator_) {
    coordinator_->step_finished();
  }
}

void LoopFrame::add_reduction(void* target, const ReductionOps* ops) {
  reductions_.push_back(Reduction{target, ops});
}

bool DatasetRunnerBase::run_box(int, const std::int64_t*, const std::int64_t*) {
  throw std::logic_error("rotor: internal: run_box on a dataset loop");
}
bool DatasetRunnerBase::run_list(int, const std::size_t*, std::size_t) {
  throw std::logic_error("rotor: internal: run_list on a dataset loop");
}
bool IndexRunnerBase::run_records(int, std::size_t, std::size_t) {
  throw std::logic_error("rotor: internal: run_records on an index-space loop");
}

namespace {

std::int64_t element_count(const ArrayBinding& b) {
  std::int64_t n = 1;
  for (std::int64_t e : b.shape) {
    n *= e;
  }
  return n;
}

/// Combines the slots' partials in slot order, then the ranks' in rank order, into the target.
void combine_reduction(void* target, const ReductionOps& ops, const std::vector<const char*>& parts,
                       bool across_ranks) {
  std::vector<char> total(ops.bytes), part(ops.bytes);
  ops.identity(total.data());
  for (const char* p : parts) {
    ops.combine(total.data(), p);
  }
  if (across_ranks) {
    std::vector<std::size_t> offs;
    std::vector<char> all = comm().allgatherv(total.data(), ops.bytes, offs);
    ops.identity(total.data());
    for (int r = 0; r < comm().size(); ++r) {
      std::memcpy(part.data(), all.data() + offs[static_cast<std::size_t>(r)], ops.bytes);
      ops.combine(total.data(), part.data());
    }
  }
  ops.combine(target, total.data());
}

/// The reduction variables' bytes, concatenated (checkpoints log them; a resumed run that skips
/// the loop writes them back so a sum the program uses later keeps its value).
std::vector<char> reduction_bytes(LoopFrame& frame) {
  std::vector<char> bytes;
  for (const auto& r : LoopFrameAccess::reductions(frame)) {
    const std::size_t at = bytes.size();
    bytes.resize(at + r.ops->bytes);
    std::memcpy(bytes.data() + at, r.target, r.ops->bytes);
  }
  return bytes;
}

void restore_reductions(LoopFrame& frame, const std::vector<char>& bytes) {
  std::size_t at = 0;
  for (const auto& r : LoopFrameAccess::reductions(frame)) {
    if (at + r.ops->bytes <= bytes.size()) {
      std::memcpy(r.target, bytes.data() + at, r.ops->bytes);
    }
    at += r.ops->bytes;
  }
}

/// The bytes of a bound array's elements: [first, second).
std::pair<std::uintptr_t, std::uintptr_t> array_bytes(const ArrayBinding& b) {
  std::size_t count = 1;
  for (const std::int64_t e : b.shape) {
    count *= static_cast<std::size_t>(e);
  }
  const auto begin = reinterpret_cast<std::uintptr_t>(b.data);
  return {begin, begin + count * b.elem_bytes};
}

/// Two bound arrays are one object, or share memory: two views of one plain container bound under
/// two names (`f(W, W)` for parameters `W` and `H`, docs/design/containers.md). The loop then
/// runs serially: the plan treated them as independent arrays.
bool arrays_alias(LoopFrame& frame) {
  const auto& arrays = LoopFrameAccess::arrays(frame);
  for (std::size_t i = 0; i < arrays.size(); ++i) {
    const auto [begin_i, end_i] = array_bytes(arrays[i].binding);
    for (std::size_t j = i + 1; j < arrays.size(); ++j) {
      if (arrays[i].binding.identity == arrays[j].binding.identity) {
        return true;
      }
      const auto [begin_j, end_j] = array_bytes(arrays[j].binding);
      if (begin_i != end_i && begin_j != end_j && begin_i < end_j && begin_j < end_i) {
        return true;
      }
    }
  }
  return false;
}

/// Byte ranges [begin, end).
using ByteRanges = std::vector<std::pair<std::uintptr_t, std::uintptr_t>>;

/// Adds [first, last) to the sorted `out`, keeping it sorted: a staged table's rows come sorted
/// (PointerTableRows), so each table costs a merge rather than a sort of all.
template <class It> void merge_sorted(ByteRanges& out, It first, It last) {
  const auto mid = static_cast<std::ptrdiff_t>(out.size());
  out.insert(out.end(), first, last);
  if (!std::is_sorted(out.begin() + mid, out.end())) {
    std::sort(out.begin() + mid, out.end());
  }
  std::inplace_merge(out.begin(), out.begin() + mid, out.end());
}

/// The rows of the staged `T**` tables alive on this thread (PointerTable.h) overlap each other
/// or a bound array's memory, or a reached row is null: the tables then give the body their own
/// rows and the loop runs serially (runnable_kind's note says so). Staged arrays never overlap
/// (they are the copies), so a bound view of a plain container or a DistArray is what a row can
/// share.
bool pointer_rows_alias(LoopFrame& frame) {
  auto& tables = detail::live_pointer_tables();
  if (tables.empty()) {
    return false;
  }
  ByteRanges ranges;
  bool alias = false;
  for (const detail::PointerTableRows* t : tables) {
    alias = alias || t->in_place;
    merge_sorted(ranges, t->rows.begin(), t->rows.end());
  }
  ByteRanges arrays;
  for (const auto& a : LoopFrameAccess::arrays(frame)) {
    if (const auto bytes = array_bytes(a.binding); bytes.first != bytes.second) {
      arrays.push_back(bytes);
    }
  }
  merge_sorted(ranges, arrays.begin(), arrays.end());
  for (std::size_t i = 1; i < ranges.size() && !alias; ++i) {
    alias = ranges[i].first < ranges[i - 1].second;
  }
  if (alias) {
    // Latest first: a table staged after another over the same row pointers saw that one's
    // staged rows as its own, and must give them back before the first restores the originals.
    for (auto t = tables.rbegin(); t != tables.rend(); ++t) {
      (*t)->in_place = true;
      if ((*t)->own_rows) {
        (*t)->own_rows();
      }
    }
  }
  return alias;
}

/// The bytes a ragged nest's inspector read through pointer chains (ChainReads.h) share a byte
/// with what the loop writes: a bound array (a view, a DistArray, a buffered array), a staged
/// table's own rows (std::vector or T** tables) or swapped row pointers, a private variable's
/// outside object, a reduction variable. The counts and keys read before the loop may then not be
/// the loop's: run_loop declines it (every rank, when any rank finds one) and the code after the
/// call runs the loop as written. Only the latest inspector's reads, by its own loop (the first
/// run_loop after it): a loop its body runs meanwhile is neither checked nor declined for them.
bool chain_reads_written(LoopFrame& frame) {
  auto& live = detail::live_chain_reads();
  if (live.empty() || live.back()->claimed) {
    return false; // the same on every rank: the same code reached run_loop
  }
  detail::ChainReadRanges& reads = *live.back(); // this loop's inspector's (the latest)
  reads.claimed = true;
  ByteRanges writes;
  ByteRanges others; // few: swapped row pointers, outside objects, arrays, reduction variables
  for (const detail::PointerTableRows* t : detail::live_pointer_tables()) {
    merge_sorted(writes, t->rows.begin(), t->rows.end());
    others.push_back(t->swapped_pointers);
  }
  for (const detail::ChainReadRanges* original : detail::live_written_originals_value) {
    others.insert(others.end(), original->ranges.begin(), original->ranges.end());
  }
  for (const auto& a : LoopFrameAccess::arrays(frame)) {
    others.push_back(array_bytes(a.binding));
  }
  for (const auto& r : LoopFrameAccess::reductions(frame)) {
    const auto begin = reinterpret_cast<std::uintptr_t>(r.target);
    others.emplace_back(begin, begin + r.ops->bytes);
  }
  merge_sorted(writes, others.begin(), others.end());
  writes.erase(std::remove_if(writes.begin(), writes.end(),
                              [](const auto& w) { return w.first == w.second; }),
               writes.end());
  std::vector<std::uintptr_t> furthest(writes.size()); // the largest end among writes[0..i]
  for (std::size_t i = 0; i < writes.size(); ++i) {
    furthest[i] = std::max(writes[i].second, i > 0 ? furthest[i - 1] : 0);
  }
  std::int64_t written = 0;
  for (const auto& [begin, end] : reads.ranges) {
    // the writes that start before `end`: one of them overlaps when the furthest ends after `begin`
    const auto starts_before = static_cast<std::size_t>(
        std::lower_bound(writes.begin(), writes.end(), std::make_pair(end, std::uintptr_t{0})) -
        writes.begin());
    written = written != 0 || (starts_before > 0 && furthest[starts_before - 1] > begin);
  }
  if (comm().size() > 1) {
    comm().allreduce_max(&written, 1);
  }
  return written != 0;
}

/// Per slot: the array objects (private copies of buffered arrays) and the reduction partials.
void make_slots(LoopFrame& frame, int slots, const std::vector<bool>& buffered) {
  auto& arrays = LoopFrameAccess::arrays(frame);
  auto& reductions = LoopFrameAccess::reductions(frame);
  const std::size_t na = arrays.size(), nr = reductions.size();
  auto& slot_arrays = LoopFrameAccess::slot_arrays(frame);
  auto& copies = LoopFrameAccess::copies(frame);
  slot_arrays.assign(static_cast<std::size_t>(slots) * na, nullptr);
  copies.assign(static_cast<std::size_t>(slots) * na, nullptr);
  for (std::size_t s = 0; s < static_cast<std::size_t>(slots); ++s) {
    for (std::size_t i = 0; i < na; ++i) {
      void* object = const_cast<void*>(arrays[i].binding.identity);
      if (buffered[i]) {
        copies[s * na + i] = LoopFrameAccess::sparse(frame) ? arrays[i].ops->make_sparse(object)
                                                            : arrays[i].ops->copy(object);
        object = copies[s * na + i];
      }
      slot_arrays[s * na + i] = object;
    }
  }
  // Each slot's partials start on their own cache line (no false sharing between workers).
  constexpr std::size_t line = 64;
  std::size_t per_slot = 0;
  std::vector<std::size_t> offsets;
  for (const auto& r : reductions) {
    per_slot = (per_slot + 15) / 16 * 16;
    offsets.push_back(per_slot);
    per_slot += r.ops->bytes;
  }
  per_slot = (per_slot + line - 1) / line * line;
  auto& storage = LoopFrameAccess::partial_storage(frame);
  storage.reset(new char[per_slot * static_cast<std::size_t>(slots) + line]);
  const auto base_address = reinterpret_cast<std::uintptr_t>(storage.get());
  char* base = storage.get() + ((line - base_address % line) % line);
  auto& slot_reductions = LoopFrameAccess::slot_reductions(frame);
  slot_reductions.assign(static_cast<std::size_t>(slots) * nr, nullptr);
  for (std::size_t s = 0; s < static_cast<std::size_t>(slots); ++s) {
    for (std::size_t j = 0; j < nr; ++j) {
      char* p = base + s * per_slot + offsets[j];
      reductions[j].ops->identity(p);
      slot_reductions[s * nr + j] = p;
    }
  }
}

/// Buffered arrays: one merge per array over its worker copies, and the coordinator of this
/// execution's flushes (docs/design/buffered.md).
void start_buffered(LoopFrame& frame, int slots, const BufferedPlan& plan) {
  auto& arrays = LoopFrameAccess::arrays(frame);
  const std::size_t na = arrays.size();
  const auto& copies = LoopFrameAccess::copies(frame);
  auto& merges = LoopFrameAccess::merges(frame);
  std::vector<BufferedMerge*> erased;
  for (std::size_t i = 0; i < na; ++i) {
    std::vector<void*> mine;
    for (std::size_t s = 0; s < static_cast<std::size_t>(slots); ++s) {
      if (void* c = copies[s * na + i]) {
        mine.push_back(c);
      }
    }
    if (!mine.empty()) {
      void* original = const_cast<void*>(arrays[i].binding.identity);
      merges.emplace_back(arrays[i].ops->make_merge(original, mine.data(), mine.size(),
                                                    LoopFrameAccess::sparse(frame)));
      erased.push_back(merges.back().get());
    }
  }
  if (erased.empty()) {
    return;
  }
  auto& coordinator = LoopFrameAccess::coordinator(frame);
  coordinator =
      std::make_unique<FlushCoordinator>(slots, plan.flush_every, plan.staleness, plan.across,
                                         std::move(erased), plan.managed_bytes, plan.each_step);
  LoopFrameAccess::flusher(frame) = coordinator->flushing() ? coordinator.get() : nullptr;
}

/// Sparse worker buffers for this execution: every buffered array is sparse-capable and passes
/// buffered_sparse_buffers (the body has one instantiation per kind, not per array).
bool choose_sparse(const codegen::LoopSpec& spec, LoopFrame& frame,
                   const std::vector<bool>& buffered) {
  auto& arrays = LoopFrameAccess::arrays(frame);
  const auto& capable = LoopFrameAccess::sparse_capable(frame);
  bool any = false;
  for (std::size_t i = 0; i < arrays.size(); ++i) {
    if (!buffered[i]) {
      continue;
    }
    if (i >= capable.size() || !capable[i] ||
        !buffered_sparse_buffers(element_count(arrays[i].binding),
                                 buffered_loop_density(spec.file, spec.line))) {
      return false;
    }
    any = true;
  }
  return any;
}

/// Combines the slots' reduction partials into the reduction variables (slot order, then rank
/// order when `across_ranks`).
void combine_partials(LoopFrame& frame, int slots, bool across_ranks) {
  auto& reductions = LoopFrameAccess::reductions(frame);
  const std::size_t nr = reductions.size();
  const auto& slot_reductions = LoopFrameAccess::slot_reductions(frame);
  for (std::size_t j = 0; j < nr; ++j) {
    std::vector<const char*> parts;
    for (std::size_t s = 0; s < static_cast<std::size_t>(slots); ++s) {
      parts.push_back(static_cast<const char*>(slot_reductions[s * nr + j]));
    }
    combine_reduction(reductions[j].target, *reductions[j].ops, parts, across_ranks);
  }
}

/// After the loop: merges buffered arrays and combines reductions into the originals; keeps the
/// workers' density for the next execution's choice of buffers.
void finish_slots(const codegen::LoopSpec& spec, LoopFrame& frame, int slots, bool across_ranks) {
  if (auto& coordinator = LoopFrameAccess::coordinator(frame)) {
    coordinator->finish();
    BufferedStats& st = buffered_stats();
    double density = 0;
    for (const auto& m : LoopFrameAccess::merges(frame)) {
      density = std::max(density, m->worker_density());
      st.buffer_bytes += static_cast<std::int64_t>(m->buffer_bytes());
      st.held_rows += m->held_rows();
      st.sparse_buffers += LoopFrameAccess::sparse(frame) ? 1 : 0;
    }
    st.worker_density = density;
    buffered_loop_density(spec.file, spec.line) = density;
    if (session_state().settings.verbose && comm().rank() == 0 && !quiet()) {
      std::fprintf(stderr,
                   "rotor: %s:%d: buffered: %s worker buffers, %.1f KiB on rank 0, worker "
                   "density %.4f, %lld rounds, %lld bytes sent, %lld rows held back\n",
                   spec.file, spec.line, LoopFrameAccess::sparse(frame) ? "sparse" : "dense",
                   static_cast<double>(st.buffer_bytes) / 1024.0, density,
                   static_cast<long long>(st.rounds), static_cast<long long>(st.bytes_sent),
                   static_cast<long long>(st.held_rows));
    }
  }
  combine_partials(frame, slots, across_ranks);
}

/// The template's runner, and what undoing a step of a loop that may throw needs on this side:
/// the slots' reduction partials as they were when the step started (the engine undoes the
/// arrays and records, StepUndo.h).
class UndoableRunner final : public CellRunner {
public:
  UndoableRunner(CellRunner& body, LoopFrame& frame) : body_(body), frame_(frame) {}
  bool run_records(int slot, std::size_t begin, std::size_t end) override {
    return body_.run_records(slot, begin, end);
  }
  bool run_box(int slot, const std::int64_t* lo, const std::int64_t* hi) override {
    return body_.run_box(slot, lo, hi);
  }
  bool run_list(int slot, const std::size_t* indices, std::size_t count) override {
    return body_.run_list(slot, indices, count);
  }
  void cell_finished(int slot) override { body_.cell_finished(slot); }
  void step_finished() override { body_.step_finished(); }
  DeviceRunner* device() override { return body_.device(); }
  void step_starting() override {
    kept_.clear();
    for_each_partial([&](const char* p, std::size_t n) { kept_.insert(kept_.end(), p, p + n); });
  }
  void undo_step() override {
    std::size_t at = 0;
    for_each_partial([&](char* p, std::size_t n) {
      std::memcpy(p, kept_.data() + at, n);
      at += n;
    });
  }

private:
  template <class Fn> void for_each_partial(Fn&& fn) {
    const auto& reductions = LoopFrameAccess::reductions(frame_);
    const auto& slot_reductions = LoopFrameAccess::slot_reductions(frame_);
    for (std::size_t i = 0; i < slot_reductions.size(); ++i) {
      fn(static_cast<char*>(slot_reductions[i]), reductions[i % reductions.size()].ops->bytes);
    }
  }

  CellRunner& body_;
  LoopFrame& frame_;
  std::vector<char> kept_;
};

} // namespace

void run_erased_loop(const codegen::LoopSpec& spec, SpaceAccess& space, LoopFrame& frame,
                     CellRunner& runner) {
  const WatchdogLoopScope watched(spec.file, spec.line); // --rotor-timeout names this loop
  begin_loop_execution(spec.file, spec.line);            // --rotor-order-seed draws from it
  if (chain_reads_written(frame)) {
    detail::chain_loop_declined_value = true; // the caller runs the loop as written
    if (session_state().settings.verbose && comm().rank() == 0 && !quiet()) {
      std::fprintf(stderr,
                   "rotor: %s:%d: the loop writes memory its inspector read through a pointer "
                   "chain (its counts or keys): it runs as written\n",
                   spec.file, spec.line);
    }
    return;
  }
  auto& arrays = LoopFrameAccess::arrays(frame);
  const std::size_t n_arrays = arrays.size();
  if (spec.arrays.size() != n_arrays) {
    throw std::invalid_argument(std::string("rotor: the loop at ") + spec.file + ":" +
                                std::to_string(spec.line) + ": the spec lists " +
                                std::to_string(spec.arrays.size()) + " arrays but " +
                                std::to_string(n_arrays) + " are bound");
  }
  for (std::size_t i = 0; i < n_arrays; ++i) {
    arrays[i].binding.name = spec.arrays[i].name ? spec.arrays[i].name : "";
  }
  LoopFrameAccess::array_views(frame) = spec.kind != codegen::Kind::serial;
  std::vector<ArrayBinding> checkpointed; // --rotor-checkpoint: every bound array
  if (checkpoint_enabled()) {
    for (const auto& a : arrays) {
      checkpointed.push_back(a.binding);
    }
    if (checkpoint_before_execution(spec, space, checkpointed)) {
      std::vector<char> bytes = reduction_bytes(frame); // the expected size
      checkpoint_after_execution(spec, space, checkpointed, true, bytes);
      restore_reductions(frame, bytes);
      return;
    }
  }
  ExecutionInfo info =
      plan_execution(spec, space, pointer_rows_alias(frame) || arrays_alias(frame));
  const bool serial = info.kind == codegen::Kind::serial;
  std::vector<bool> buffered(n_arrays);
  std::size_t bound_bytes = 0, buffered_bytes = 0;
  for (std::size_t i = 0; i < n_arrays; ++i) {
    buffered[i] = !serial && spec.arrays[i].role == codegen::Role::buffered;
    const std::size_t bytes =
        static_cast<std::size_t>(element_count(arrays[i].binding)) * arrays[i].binding.elem_bytes;
    (buffered[i] ? buffered_bytes : bound_bytes) += bytes;
  }
  if (gpu_runs_loop(spec, space, info, bound_bytes + buffered_bytes, runner)) {
    info.gpu = true;
    info.slots = 1; // the device is one worker: slot 0's arrays and partials
  }
  check_loop_memory(spec, space, bound_bytes + buffered_bytes, buffered_bytes, info.slots);
  LoopFrameAccess::sparse(frame) = choose_sparse(spec, frame, buffered);
  make_slots(frame, info.slots, buffered);
  start_buffered(frame, info.slots, plan_buffered(spec, info));
  std::vector<ArrayBinding> bindings;
  std::vector<int> spec_index;
  for (std::size_t i = 0; i < n_arrays; ++i) {
    if (!buffered[i]) {
      bindings.push_back(arrays[i].binding);
      spec_index.push_back(static_cast<int>(i));
    }
  }
  const bool any_buffered = std::find(buffered.begin(), buffered.end(), true) != buffered.end();
  const auto validation = LoopValidation::start(spec, space, frame, info, any_buffered);
  UndoableRunner undoable(runner, frame);
  try {
    execute(spec, space, bindings, spec_index, undoable, info);
  } catch (...) {
    // one process (across ranks the engine ended the job): the reductions get the partials of
    // the completed steps, like the arrays (a serial plan: of the records before the throw)
    combine_partials(frame, info.slots, false);
    throw;
  }
  finish_slots(spec, frame, info.slots, !info.redundant() && comm().size() > 1);
  loop_finished();
  if (validation) {
    validation->finish(runner);
  }
  if (checkpoint_enabled()) {
    std::vector<char> bytes = reduction_bytes(frame);
    checkpoint_after_execution(spec, space, checkpointed, false, bytes);
  }
}

} // namespace rotor::detail
