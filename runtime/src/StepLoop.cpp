#include "StepLoop.h"

#include "ArraySync.h"
#include "CellGuard.h"
#include "Comm.h"
#include "Mover.h"
#include "Observability.h"
#include "OrderRecorder.h"
#include "PointList.h"
#include "Replication.h"
#include "StepUndo.h"
#include "WorkerSlots.h"
#include "OrderLog.h"

#include <chrono>
#include <sstream>

namespace rotor::detail {
namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
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
      probe.run_records(run_.runner, t, layout_->seg_begin[cell], layout_->seg_end[cell]);
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
        for (std::size_t i = layout_->seg_begin[cell]; i < layout_->seg_end[cell]; ++i) {
          my_order_.push_back(run_.space.ids()[i]);
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

  std::string summary() const {
    std::ostringstream s;
    s << kind_name(shape_.layout.kind) << (shape_.on_every_rank ? " (skewed)" : "") << " over "
      << sched_.steps.size() << " steps, " << sched_.cells << " cells (layout "
      << seconds(t0_, t_layout_) << " s, steps " << seconds(t_layout_, t_steps_) << " s, end sync "
      << sync_s_ << " s)";
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
  const RecordLayout* layout_ = nullptr;
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
  return req;
}

std::string StepExecutor::run(LoopRun& run) {
  return StepRun(run, shape(run)).execute();
}

} // namespace rotor::detail
