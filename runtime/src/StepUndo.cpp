#include "StepUndo.h"

#include "MovePlan.h"

#include <cstring>

namespace rotor::detail {

StepUndo::StepUndo(const codegen::LoopSpec& spec, const std::vector<ArrayBinding>& arrays,
                   const std::vector<int>& spec_index, bool footprints)
    : spec_(spec), arrays_(arrays), spec_index_(spec_index), footprints_(footprints) {}

void StepUndo::keep_box(const ArrayBinding& a, int array, Box box) {
  Kept k;
  k.array = array;
  k.bytes.resize(static_cast<std::size_t>(box.volume()) * a.elem_bytes);
  pack_box(a.data, a.shape, a.elem_bytes, box, k.bytes.data());
  k.box = std::move(box);
  kept_.push_back(std::move(k));
}

void StepUndo::save(const Schedule& sched, const std::vector<int>& cells, const LoopLayout* layout,
                    SpaceAccess& space) {
  kept_.clear();
  records_.clear();
  for (std::size_t ai = 0; ai < arrays_.size(); ++ai) {
    const int si = spec_index_[ai];
    const codegen::ArraySpec& as = spec_.arrays[si];
    if (!as.written) {
      continue;
    }
    const ArrayBinding& a = arrays_[ai];
    if (footprints_ && as.role != codegen::Role::replicated && follows_fields(spec_, si, sched)) {
      for (int cell : cells) { // kept before any cell runs: overlapping boxes keep equal bytes
        keep_box(a, static_cast<int>(ai), footprint(spec_, si, a, sched, cell));
      }
    } else {
      Box whole;
      whole.lo.assign(a.shape.size(), 0);
      whole.hi = a.shape;
      keep_box(a, static_cast<int>(ai), std::move(whole));
    }
  }
  if (!spec_.writes_records || layout == nullptr || space.is_index_space()) {
    return;
  }
  const std::size_t rb = space.record_bytes();
  for (int cell : cells) {
    const std::size_t first = layout->seg_begin[cell], end = layout->seg_end[cell];
    const char* from = space.record_data() + first * rb;
    records_.push_back(KeptRecords{first, std::vector<char>(from, from + (end - first) * rb)});
  }
}

void StepUndo::restore(std::vector<ArrayBinding>& arrays, SpaceAccess& space) const {
  for (const Kept& k : kept_) {
    ArrayBinding& a = arrays[k.array];
    unpack_box(a.data, a.shape, a.elem_bytes, k.box, k.bytes.data());
  }
  const std::size_t rb = space.record_bytes();
  for (const KeptRecords& r : records_) {
    std::memcpy(space.record_data() + r.first * rb, r.bytes.data(), r.bytes.size());
  }
}

} // namespace rotor::detail
