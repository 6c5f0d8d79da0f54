#pragma once
/// \file
/// Undoing a step whose cell threw. Before a step of a loop that may throw
/// (codegen::LoopSpec::may_throw) runs in a single process, the engine keeps what the step's
/// cells on this rank may change: the footprint boxes of the written arrays (the whole array
/// where a cell's footprint is not a box) and the records of the cells when the body writes its
/// record. When a cell throws, every cell of the step has stopped (the arena waits for running
/// slots before it rethrows) and the kept bytes go back, so the exception leaves the state of
/// the last completed step. Across ranks an exception ends the job instead (StepLoop.cpp).

#include "Box.h"
#include "Layout.h"

#include <vector>

namespace rotor::detail {

class StepUndo {
public:
  /// `footprints` false: cells' footprints are not boxes of the arrays (skewed orders); every
  /// written array is kept whole.
  StepUndo(const codegen::LoopSpec& spec, const std::vector<ArrayBinding>& arrays,
           const std::vector<int>& spec_index, bool footprints);

  /// Keeps what the `cells` of `sched`'s step may change; `layout` (null over an index space)
  /// gives their records in `space`.
  void save(const Schedule& sched, const std::vector<int>& cells, const LoopLayout* layout,
            SpaceAccess& space);
  /// Puts the kept bytes back.
  void restore(std::vector<ArrayBinding>& arrays, SpaceAccess& space) const;

private:
  struct Kept {
    int array = 0; ///< index into the bindings
    Box box;
    std::vector<char> bytes;
  };
  struct KeptRecords {
    std::size_t first = 0; ///< local record index
    std::vector<char> bytes;
  };

  void keep_box(const ArrayBinding& a, int array, Box box);

  const codegen::LoopSpec& spec_;
  const std::vector<ArrayBinding>& arrays_;
  const std::vector<int>& spec_index_;
  const bool footprints_;
  std::vector<Kept> kept_;
  std::vector<KeptRecords> records_;
};

} // namespace rotor::detail
