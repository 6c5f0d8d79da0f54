#include "CellGuard.h"

#include "Comm.h"
#include "LoopWhere.h"
#include "MovePlan.h"

#include <sstream>
#include <stdexcept>

namespace rotor::detail {

void CellGuard::check(const void* array, const std::int64_t* index, int count, bool) const {
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

void CellGuard::fail(const ArrayCheck& a, const std::int64_t* index, int count) const {
  std::ostringstream msg;
  msg << "[rank " << comm().rank() << "] rotor: access check failed in the loop at "
      << loop_where(spec_) << " (plan " << kind_name(spec_.kind) << "): " << a.name << "(";
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
  bool in_shape = true;
  for (int d = 0; d < count; ++d) {
    in_shape = in_shape && (index[d] == -1 || (index[d] >= 0 && index[d] < a.shape[d]));
  }
  if (in_shape) {
    msg << " (the plan's footprint is wrong, or the body indexes the array by something the "
           "analysis did not see)";
  } else {
    msg << " (and outside " << a.name << "'s shape: the program indexes past the array, which "
        << "its serial run does too)";
  }
  throw std::logic_error(msg.str());
}

std::vector<ArrayCheck> cell_checks(const codegen::LoopSpec& spec,
                                    const std::vector<ArrayBinding>& arrays,
                                    const std::vector<int>& spec_index, const Schedule& sched,
                                    int cell, bool footprints) {
  std::vector<ArrayCheck> out;
  for (std::size_t ai = 0; ai < arrays.size(); ++ai) {
    ArrayCheck ch;
    ch.identity = arrays[ai].identity;
    ch.name = arrays[ai].name;
    ch.shape = arrays[ai].shape;
    const int si = spec_index[ai];
    if (footprints && spec.arrays[si].role != codegen::Role::replicated &&
        follows_fields(spec, si, sched)) {
      ch.allowed = footprint(spec, si, arrays[ai], sched, cell);
    }
    out.push_back(std::move(ch));
  }
  return out;
}

} // namespace rotor::detail
