#pragma once
/// \file
/// The type-erased half of rotor::codegen::run_loop. RunLoop.h describes the loop's arrays and
/// reductions as bytes plus a few function pointers (one small table per element type, not per
/// loop) and hands them with a CellRunner to run_erased_loop (runtime/src/RunLoop.cpp), which does
/// everything that does not depend on the body: checkpoints, the memory check, worker-private
/// copies of buffered arrays and their merge, reduction partials and their combination, and the
/// engine call. What each rotor-cc loop instantiates is then only its record loop (RunLoop.h).
/// Not for user code.

#include "rotor/runtime/Codegen.h"
#include "rotor/runtime/detail/Engine.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace rotor::detail {

class BufferedMerge;
class FlushCoordinator;
class FlushTrigger;

/// What the erased side needs to copy a DistArray<T, N> (a worker-private buffered copy).
struct ArrayOps {
  void* (*copy)(const void* array); ///< a new DistArray equal to `array`
  void (*destroy)(void* array);     ///< deletes a copy made by `copy`
  char* (*data)(void* array);       ///< the copy's elements
  /// The merge of buffered array `array` from its `count` worker copies (Buffered.h), which are
  /// SparseBuffers when `sparse`.
  BufferedMerge* (*make_merge)(void* array, void* const* copies, std::size_t count, bool sparse);
  void* (*make_sparse)(const void* array); ///< a new SparseBuffer viewing `array`
  void (*destroy_sparse)(void* buffer);    ///< deletes a buffer made by `make_sparse`
};

/// What the erased side needs to keep worker-private partials of a reduction variable.
struct ReductionOps {
  std::size_t bytes = 0;                                   ///< sizeof (trivially copyable)
  void (*identity)(void* out) = nullptr;                   ///< writes the identity into `out`
  void (*combine)(void* into, const void* part) = nullptr; ///< into op= part
  /// --rotor-validate: the value, for messages.
  double (*value)(const void* r) = nullptr;
  /// --rotor-validate: the largest relative difference from the serial replay that passes (0:
  /// bitwise, for integers; floating sums combine per-worker partials in another order).
  double tolerance = 0;
};

/// The loop's arrays and reductions as bytes, and per worker slot the objects the body sees.
class LoopFrame {
public:
  LoopFrame();
  ~LoopFrame();
  LoopFrame(const LoopFrame&) = delete;
  LoopFrame& operator=(const LoopFrame&) = delete;

  /// Appends a bound array (in the order of the spec's arrays).
  void add_array(const void* identity, const void* data, std::size_t elem_bytes,
                 ElementType element_type, const std::int64_t* shape, int rank,
                 const ArrayOps* ops);
  /// Array `array` may get sparse worker buffers (codegen::SparseCapable).
  void set_sparse_capable(std::size_t array);
  /// Appends a reduction variable (in the order of the spec's reductions).
  void add_reduction(void* target, const ReductionOps* ops);

  /// For slot `slot` (valid while run_erased_loop runs the loop): the array objects the body
  /// gets (the original or the slot's private copy), and the slot's reduction partials.
  void* const* arrays(int slot) const { return slot_arrays_.data() + slot * array_count(); }
  void* const* reductions(int slot) const {
    return slot_reductions_.data() + slot * reduction_count();
  }
  /// Buffered arrays flushed during the loop (--rotor-flush-every): the coordinator the record
  /// loop reports each record to; nullptr when buffered arrays merge only at the loop's end.
  FlushTrigger* flusher() const { return flusher_; }
  /// This execution's buffered arrays are SparseBuffers (all of them, or none: the body has one
  /// instantiation with dense copies and one with sparse buffers).
  bool sparse() const { return sparse_; }
  /// The body may get local views of the bound DistArrays (RunLoop.h, local_view): the frontend
  /// planned the loop parallel, so its body cannot keep an array's address past the loop (a body
  /// that could, by taking the address or passing the array to a function Rotor cannot see, is
  /// planned serial and gets the arrays themselves, as the serial program would).
  bool array_views() const { return array_views_; }
  /// The engine finished slot `slot`'s cell: its buffered changes are published.
  void cell_finished(int slot) const;
  /// The engine finished a step on this rank: step-mode buffered arrays merge.
  void step_finished() const;

private:
  friend struct LoopFrameAccess;
  struct Array {
    ArrayBinding binding;
    const ArrayOps* ops = nullptr;
  };
  struct Reduction {
    void* target = nullptr;
    const ReductionOps* ops = nullptr;
  };
  int array_count() const { return static_cast<int>(arrays_.size()); }
  int reduction_count() const { return static_cast<int>(reductions_.size()); }

  std::vector<Array> arrays_;
  std::vector<Reduction> reductions_;
  std::vector<void*> slot_arrays_;     ///< slots x arrays
  std::vector<void*> slot_reductions_; ///< slots x reductions
  std::vector<void*> copies_;          ///< slots x arrays, nullptr where not copied
  std::unique_ptr<char[]> partial_storage_;
  std::vector<std::unique_ptr<BufferedMerge>> merges_; ///< one per buffered array
  std::unique_ptr<FlushCoordinator> coordinator_;      ///< when there are buffered arrays
  FlushTrigger* flusher_ = nullptr;                    ///< coordinator_ when it flushes mid-loop
  std::vector<bool> sparse_capable_;                   ///< per array
  bool sparse_ = false;
  bool array_views_ = false;
};

/// Runs the loop: `runner` calls the body with the objects `frame` gives each slot.
void run_erased_loop(const codegen::LoopSpec& spec, SpaceAccess& space, LoopFrame& frame,
                     CellRunner& runner);

/// CellRunner halves that are the same for every loop (the unused entry points throw).
class DatasetRunnerBase : public CellRunner {
public:
  bool run_box(int slot, const std::int64_t* lo, const std::int64_t* hi) override;
  bool run_list(int slot, const std::size_t* indices, std::size_t count) override;
  /// --rotor-validate: runs the body serially over the `count` records at `records` (copies, in
  /// the order to replay) with the objects of `frame`'s slot 0.
  virtual bool replay_records(const LoopFrame& frame, char* records, std::size_t count) = 0;
};
class IndexRunnerBase : public CellRunner {
public:
  bool run_records(int slot, std::size_t begin, std::size_t end) override;
  /// --rotor-validate: runs the body serially over the points with the `count` linear (row-major)
  /// indices at `indices`, in that order, with the objects of `frame`'s slot 0.
  virtual bool replay_points(const LoopFrame& frame, const std::size_t* indices,
                             std::size_t count) = 0;
};

} // namespace rotor::detail
