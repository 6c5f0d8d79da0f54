#include "StepLoop.h"

#include "ArraySync.h"
#include "CellGuard.h"
#include "Comm.h"
#include "Mover.h"
#include "Observability.h"
#include "OrderLog.h"
#include "OrderRecorder.h"
#include "PointList.h"
#include "Replication.h"
#include "ScheduleSettings.h"
#include "StepUndo.h"
#include "WorkerSlots.h"

#include "rotor/distarray/detail/CounterRng.h"

#include <chrono>
#include <sstream>

namespace rotor::detail {
namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

/// A stretch of local records [begin, end) a cell runs in one go.
struct Piece {
  std::size_t begin, end;
};

std::vector<Piece> whole_cell(const LoopLayout& l, int cell) {
  return {Piece{l.seg_begin[cell], l.seg_end[cell]}};
}

/// The order of one execution of a rotation or one_d plan over unordered records
/// (--rotor-order-seed; ScheduleSettings.h): with a seed, a fresh order of the steps (any order
/// of a rotation's steps is a serial order) and, inside each cell, a fresh order of its tiles,
/// each tile starting at a fresh record and wrapping around; all drawn from (seed, loop,
/// execution), the same on every rank. Without a seed, for other plans and at one worker, the
/// laid-out order.
class ExecutionOrder {
public:
  ExecutionOrder() = default;
  ExecutionOrder(const LayoutRequest& req, Schedule& s, std::uint64_t execution)
      : execution_(execution) {
    // rotation and one_d, the plans whose blocks are cut into tiles; one cell (one worker): the
    // dataset's order, as the serial build runs it
    const bool reorder = !req.ordered && !req.matrix && s.cells > 1 &&
                         (req.kind == codegen::Kind::rotation || req.kind == codegen::Kind::one_d);
    seed_ = reorder ? schedule_settings().order_seed : 0;
    if (seed_ == 0) {
      return;
    }
    std::uint64_t h = seed_;
    for (const char* c = req.spec->file; *c != '\0'; ++c) {
      h = mix64(h ^ static_cast<unsigned char>(*c));
    }
    base_ = mix64(h ^ (static_cast<std::uint64_t>(req.spec->line) << 32) ^ mix64(execution));
    if (req.kind == codegen::Kind::rotation) {
      shuffle(s.steps, base_);
    }
  }
  std::uint64_t seed() const { return seed_; }
  std::uint64_t execution() const { return execution_; }

  /// Cell `cell`'s records in this execution's order.
  std::vector<Piece> pieces(const LoopLayout& l, int cell) const {
    const int per_cell = l.schedule.tiles_per_cell();
    if (seed_ == 0 || l.tile_starts.empty()) {
      return rotated({whole_cell(l, cell)}, cell);
    }
    std::vector<Piece> tiles;
    for (int t = 0; t < per_cell; ++t) {
      const std::size_t at = static_cast<std::size_t>(cell) * per_cell + t;
      if (l.tile_starts[at] < l.tile_starts[at + 1]) {
        tiles.push_back({l.tile_starts[at], l.tile_starts[at + 1]});
      }
    }
    shuffle(tiles, mix64(base_ ^ static_cast<std::uint64_t>(cell)));
    return rotated(std::move(tiles), cell);
  }

private:
  /// Fisher-Yates with a counter-based generator: the same permutation everywhere.
  template <class T> static void shuffle(std::vector<T>& v, std::uint64_t key) {
    for (std::size_t i = v.size(); i > 1; --i) {
      const std::uint64_t r = mix64(key ^ (i * 0x9e3779b97f4a7c15ULL));
      std::swap(v[i - 1], v[r % i]);
    }
  }
  /// Each piece starts at a drawn record and wraps around to its beginning.
  std::vector<Piece> rotated(std::vector<Piece> in, int cell) const {
    if (seed_ == 0) {
      return in;
    }
    std::vector<Piece> out;
    for (std::size_t k = 0; k < in.size(); ++k) {
      const std::size_t n = in[k].end - in[k].begin;
      const std::uint64_t r = mix64(base_ ^ (static_cast<std::uint64_t>(cell) << 24) ^ (k + 1));
      const std::size_t start = in[k].begin + (n ? static_cast<std::size_t>(r % n) : 0);
      out.push_back({start, in[k].end});
      if (start > in[k].begin) {
        out.push_back({in[k].begin, start});
      }
    }
    return out;
  }

  std::uint64_t seed_ = 0, execution_ = 0, base_ = 0;
};

/// "blocks 4x8, tiles 8x1 a cell (1.0 MiB of rows a tile, cache 2.0 MiB)" for --rotor-verbose.
std::string blocks_summary(const Schedule& s, const LayoutRequest& req) {
  std::ostringstream o;
  double rows = 0;
  o << "blocks ";
  for (int j = 0; j < s.fields(); ++j) {
    o << (j ? "x" : "") << s.blocks[j] * s.tiles[j];
  }
  o << ", tiles ";
  for (int j = 0; j < s.fields(); ++j) {
    o << (j ? "x" : "") << s.tiles[j];
    if (j < static_cast<int>(req.row_bytes.size()) && !s.tile_bounds.empty()) {
      rows += static_cast<double>(s.tile_bounds[j].extent()) / (s.blocks[j] * s.tiles[j]) *
              static_cast<double>(req.row_bytes[j]);
    }
  }
  o.precision(2);
  o << std::fixed << " a cell (" << rows / 1048576.0 << " MiB of array rows a tile, target "
    << static_cast<double>(req.cache_bytes) / 1048576.0 << " MiB"
    << (req.blocks > 0 ? ", --rotor-blocks" : "") << ")";
  return o.str();
}

/// One execution of a stepped plan on this rank.
class StepRun {
public:
  StepRun(LoopRun& run, StepShape shape)
      : run_(run), shape_(std::move(shape)), t0_(Clock::now()),
        first_worker_(shape_.layout.rank * shape_.layout.threads) {}

  std::string execute() {
    lay_out();
    for (std::size_t st = 0; st < sched_.steps.size(); ++st) {
      run_step(st);
      after_step(st);
    }
    finish_moves();
    if (run_.keep_order) {
      record_order();
    }
    last_stats() = LoopStats{stats_.transfer_s, stats_.exposed_s, stats_.bytes};
    run_.probe.add_bytes_moved(stats_.bytes);
    return summary();
  }

private:
  int threads() const { return shape_.layout.threads; }
  bool boxes() const { return run_.space.is_index_space() && !shape_.on_every_rank; }
  bool moves() const { return shape_.layout.ranks > 1; }

  /// Makes the records' layout (or the index space's boxes) and the movement plan.
  void lay_out() {
    SpaceAccess& space = run_.space;
    const auto g0 = run_.probe.now();
    if (shape_.on_every_rank) {
      replicate(space);
    }
    if (run_.keep_order) {
      space.ensure_ids();
    }
    SpaceAccess* records = &space;
    if (space.is_index_space() && shape_.on_every_rank) {
      points_ = std::make_unique<PointList>(space.extents());
      records = points_.get();
    }
    if (boxes()) {
      sched_ = index_schedule(shape_.layout, space.extents());
    } else {
      layout_ = &record_layout(shape_.layout, *records);
      sched_ = layout_->schedule;
      run_.probe.set_local_records(records->local_count());
      if (!points_) {
        order_ = ExecutionOrder(shape_.layout, sched_, current_loop_execution());
        std::vector<int> blocks;
        for (int j = 0; j < sched_.fields(); ++j) {
          blocks.push_back(sched_.blocks[j] * sched_.tiles[j]);
        }
        last_blocks() = blocks;
        run_.probe.set_blocks(std::move(blocks), sched_.tiles);
      }
    }
    run_.probe.rank_phase(SpanKind::layout, g0, run_.probe.now());
    if (moves()) {
      moves_ = plan_moves(run_.spec, run_.arrays, run_.spec_index, sched_, shape_.skewed_keys);
      snapshots_ = std::make_unique<DiffSnapshots>(moves_.diff_arrays, run_.arrays);
    }
    mover_ = std::make_unique<Mover>(moves_, run_.arrays, stats_);
    if (run_.spec.may_throw && comm().size() == 1) {
      undo_ = std::make_unique<StepUndo>(run_.spec, run_.arrays, run_.spec_index,
                                         !shape_.on_every_rank && !shape_.skewed_keys);
    }
    point_order_ = space.is_index_space() ? validation_sink() : nullptr;
    if (point_order_ != nullptr) {
      point_order_->clear();
    }
    t_layout_ = Clock::now();
  }

  /// Runs step `st`'s cells on this rank's slots once the blocks they read have arrived.
  void run_step(std::size_t st) {
    std::vector<int> active;
    for (int t = 0; t < threads(); ++t) {
      if (sched_.steps[st][first_worker_ + t] >= 0) {
        active.push_back(t);
      }
    }
    if (moves()) {
      const auto r0 = run_.probe.now();
      mover_->complete_needed(static_cast<int>(st));
      run_.probe.rank_phase(SpanKind::recv, r0, run_.probe.now());
    }
    if (undo_) {
      keep_step(st, active);
    }
    run_.probe.step_begin();
    const auto cell = [&](int t) { run_cell(st, t); };
    try {
      if (moves() && !mover_->idle()) {
        run_slots_polling(active, cell, [&] { return mover_->poll(); });
      } else {
        run_slots(active, cell);
      }
    } catch (...) {
      if (undo_) {
        undo_->restore(run_.arrays, run_.space);
        run_.runner.undo_step();
      }
      fail(std::current_exception());
    }
    run_.probe.step_end();
  }

  /// Keeps what step `st`'s cells on the `active` slots may change (StepUndo.h).
  void keep_step(std::size_t st, const std::vector<int>& active) {
    std::vector<int> cells;
    for (int t : active) {
      cells.push_back(sched_.steps[st][first_worker_ + t]);
    }
    undo_->save(sched_, cells, points_ ? nullptr : layout_, run_.space);
    run_.runner.step_starting();
  }

  /// Slot `t` runs its cell of step `st` under the access check.
  void run_cell(std::size_t st, int t) {
    const int cell = sched_.steps[st][first_worker_ + t];
    LoopProbe& probe = run_.probe;
    const auto c0 = probe.now();
    std::uint64_t count = 0;
    CellGuard guard(run_.spec,
                    cell_checks(run_.spec, run_.arrays, run_.spec_index, sched_, cell,
                                !shape_.on_every_rank && !shape_.skewed_keys),
                    first_worker_ + t, static_cast<int>(st));
    GuardScope scope(&guard);
    if (boxes()) {
      std::vector<std::int64_t> ext = run_.space.extents();
      std::vector<std::int64_t> lo(ext.size(), 0), hi(ext);
      for (int j = 0; j < sched_.fields(); ++j) {
        const int b = sched_.coordinate(cell, j);
        lo[sched_.field_keys[j]] = sched_.block_first(j, b);
        hi[sched_.field_keys[j]] = sched_.block_end(j, b);
      }
      run_.runner.run_box(t, lo.data(), hi.data());
      count = points_in_box(lo, hi);
    } else if (points_) {
      count = layout_->seg_end[cell] - layout_->seg_begin[cell];
      probe.run_list(run_.runner, t, points_->points() + layout_->seg_begin[cell], count);
    } else {
      count = layout_->seg_end[cell] - layout_->seg_begin[cell];
      for (const Piece& p : order_.pieces(*layout_, cell)) {
        if (!probe.run_records(run_.runner, t, p.begin, p.end)) {
          break;
        }
      }
    }
    run_.runner.cell_finished(t);
    probe.cell(t, sched_.fields() ? sched_.coordinate(cell, sched_.fields() - 1) : cell, c0,
               probe.now(), count);
  }

  /// A cell threw: across ranks the job ends (no collective recovery inside a loop); in one
  /// process the exception goes to the caller.
  [[noreturn]] void fail(std::exception_ptr error) {
    if (comm().size() > 1) {
      std::string msg = "rotor: the loop failed";
      try {
        std::rethrow_exception(error);
      } catch (const std::exception& e) {
        msg = e.what();
      } catch (...) {
      }
      comm().abort(msg.c_str());
    }
    std::rethrow_exception(error);
  }

  /// Between steps: difference sync, the order so far, the blocks the step produced.
  void after_step(std::size_t st) {
    LoopProbe& probe = run_.probe;
    if (moves() && shape_.sync_each_step && st + 1 < sched_.steps.size()) {
      const auto d0 = probe.now();
      snapshots_->sync(run_.arrays);
      snapshots_->refresh(run_.arrays);
      probe.rank_phase(SpanKind::sync, d0, probe.now());
    }
    if (point_order_ != nullptr) {
      append_step_points(*point_order_, sched_, st, shape_.layout.workers, run_.space.extents(),
                         layout_, points_.get());
    }
    if (run_.keep_order) {
      note_step_order(st);
    }
    if (moves()) {
      const auto s0 = probe.now();
      const std::size_t sent = stats_.bytes;
      mover_->post(static_cast<int>(st));
      probe.rank_phase(SpanKind::send, s0, probe.now(),
                       static_cast<std::int64_t>(stats_.bytes - sent));
    }
    run_.runner.step_finished(); // after the posts: a merge's collective never blocks a step's data
  }

  /// Appends the ids of this rank's records of step `st`, slot by slot.
  void note_step_order(std::size_t st) {
    for (int t = 0; t < threads(); ++t) {
      const int cell = sched_.steps[st][first_worker_ + t];
      std::size_t cnt = 0;
      if (cell >= 0 && layout_) {
        for (const Piece& p :
             points_ ? whole_cell(*layout_, cell) : order_.pieces(*layout_, cell)) {
          for (std::size_t i = p.begin; i < p.end; ++i) {
            my_order_.push_back(run_.space.ids()[i]);
          }
        }
        cnt = layout_->seg_end[cell] - layout_->seg_begin[cell];
      }
      my_counts_.push_back(cnt);
    }
  }

  void finish_moves() {
    t_steps_ = Clock::now();
    if (moves()) {
      const auto e0 = run_.probe.now();
      mover_->complete_all();
      end_sync(moves_, run_.arrays);
      snapshots_->sync(run_.arrays);
      run_.probe.rank_phase(SpanKind::sync, e0, run_.probe.now());
    }
    sync_s_ = seconds(t_steps_, Clock::now());
  }

  /// The order of all ranks: step by step, rank by rank, slot by slot (a serial order).
  void record_order() {
    std::vector<std::uint64_t> global;
    std::vector<std::size_t>& step_sizes = last_step_sizes();
    step_sizes.assign(sched_.steps.size(), 0);
    if (shape_.layout.ranks == 1) {
      global = my_order_;
      for (std::size_t k = 0; k < my_counts_.size(); ++k) {
        step_sizes[k / static_cast<std::size_t>(threads())] += my_counts_[k];
      }
    } else {
      Comm& c = comm();
      std::vector<std::uint64_t> mine = my_counts_;
      mine.insert(mine.end(), my_order_.begin(), my_order_.end());
      std::vector<std::size_t> offs;
      std::vector<char> all = c.allgatherv(mine.data(), mine.size() * 8, offs);
      const std::size_t steps = sched_.steps.size();
      const auto n = static_cast<std::size_t>(threads());
      std::vector<std::size_t> cursor(c.size());
      for (int r = 0; r < c.size(); ++r) {
        cursor[r] = offs[r] / 8 + steps * n;
      }
      const auto* words = reinterpret_cast<const std::uint64_t*>(all.data());
      for (std::size_t st = 0; st < steps; ++st) {
        for (int r = 0; r < c.size(); ++r) {
          for (std::size_t t = 0; t < n; ++t) {
            const std::uint64_t cnt = words[offs[r] / 8 + st * n + t];
            global.insert(global.end(), words + cursor[r], words + cursor[r] + cnt);
            cursor[r] += cnt;
            step_sizes[st] += cnt;
          }
        }
      }
    }
    record_loop_order(run_.space.identity(), run_.spec.file, run_.spec.line, std::move(global));
  }

  /// " (ranges 0.1 (cpu 0.2), histograms ...)": the phases of a layout made by this execution.
  std::string layout_phases() const {
    if (!layout_ || layout_->phase_seconds.empty()) {
      return "";
    }
    std::ostringstream s;
    s.precision(3);
    const char* sep = " (";
    for (const LayoutPhase& p : layout_->phase_seconds) {
      s << sep << p.name << " " << p.seconds << " (cpu " << p.cpu_seconds << ")";
      sep = ", ";
    }
    s << ")";
    return s.str();
  }

  std::string summary() const {
    std::ostringstream s;
    s << kind_name(shape_.layout.kind) << (shape_.on_every_rank ? " (skewed)" : "") << " over "
      << sched_.steps.size() << " steps, " << sched_.cells << " cells (layout "
      << seconds(t0_, t_layout_) << " s" << layout_phases() << ", steps "
      << seconds(t_layout_, t_steps_) << " s, end sync " << sync_s_ << " s)";
    if (layout_ && !points_ && sched_.fields() > 0) {
      s << ", " << blocks_summary(sched_, shape_.layout);
    }
    if (order_.seed() != 0) {
      s << ", order seed " << order_.seed() << " execution " << order_.execution();
    }
    if (moves()) {
      s << ", " << stats_.bytes << " bytes sent in-loop, communication hidden "
        << (stats_.transfer_s > 0 ? 100.0 * (1.0 - stats_.exposed_s / stats_.transfer_s) : 100.0)
        << "%";
    }
    return s.str();
  }

  LoopRun& run_;
  const StepShape shape_;
  const Clock::time_point t0_;
  const int first_worker_;
  std::unique_ptr<PointList> points_;
  Schedule sched_;
  const LoopLayout* layout_ = nullptr;
  ExecutionOrder order_;
  MovePlan moves_;
  std::unique_ptr<DiffSnapshots> snapshots_;
  CommStats stats_;
  std::unique_ptr<Mover> mover_;
  std::unique_ptr<StepUndo> undo_;                    // a loop that may throw, in one process
  std::vector<std::uint64_t>* point_order_ = nullptr; // --rotor-validate over an index space
  std::vector<std::uint64_t> my_order_;               // ids in (step, slot) order
  std::vector<std::uint64_t> my_counts_;              // per (step, slot)
  Clock::time_point t_layout_, t_steps_;
  double sync_s_ = 0;
};

/// Per partition field: the bytes of the bound arrays one key value of the field indexes (the
/// rest of their shape along every dimension that follows the field).
std::vector<std::size_t> row_bytes(const LoopRun& run, const std::vector<int>& field_keys) {
  std::vector<std::size_t> bytes(field_keys.size(), 0);
  for (std::size_t a = 0; a < run.arrays.size(); ++a) {
    const ArrayBinding& binding = run.arrays[a];
    const std::vector<codegen::Dim>& dims = run.spec.arrays[run.spec_index[a]].dims;
    for (std::size_t d = 0; d < dims.size() && d < binding.shape.size(); ++d) {
      for (std::size_t j = 0; j < field_keys.size(); ++j) {
        if (dims[d].key >= 0 && dims[d].key == field_keys[j]) {
          std::size_t row = binding.elem_bytes;
          for (std::size_t e = 0; e < binding.shape.size(); ++e) {
            row *= e == d ? 1 : static_cast<std::size_t>(binding.shape[e]);
          }
          bytes[j] += row;
        }
      }
    }
  }
  return bytes;
}

} // namespace

LayoutRequest distributed_layout(const LoopRun& run, codegen::Kind kind) {
  LayoutRequest req;
  req.spec = &run.spec;
  req.kind = kind;
  req.field_keys = partition_fields(run.spec, run.space);
  req.threads = run.info.slots;
  req.ranks = comm().size();
  req.rank = comm().rank();
  req.workers = req.ranks * req.threads;
  req.ordered = run.spec.ordered || kind == codegen::Kind::wavefront;
  req.blocks = schedule_settings().blocks;
  // a tile's array rows take half of a core's level 2 cache (the records stream through the rest)
  req.cache_bytes = l2_cache_bytes() / 2;
  req.row_bytes = row_bytes(run, req.field_keys);
  return req;
}

std::vector<int>& last_blocks() {
  static std::vector<int> blocks;
  return blocks;
}

std::string StepExecutor::run(LoopRun& run) {
  return StepRun(run, shape(run)).execute();
}

} // namespace rotor::detail
