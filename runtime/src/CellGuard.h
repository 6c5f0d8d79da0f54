#pragma once
/// \file
/// The access check: while a worker runs a cell it holds a CellGuard listing, per bound array,
/// the box of elements the plan lets that cell touch. DistArray asks the guard only in code
/// compiled with ROTOR_CHECK_ACCESS (docs/user/sanitizers.md), so elsewhere holding one costs a
/// thread-local store per cell.

#include "Box.h"
#include "Schedule.h"
#include "rotor/distarray/detail/AccessCheck.h"
#include "rotor/runtime/detail/Engine.h"

#include <string>
#include <vector>

namespace rotor::detail {

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
  void check(const void* array, const std::int64_t* index, int count, bool) const override;

private:
  [[noreturn]] void fail(const ArrayCheck& a, const std::int64_t* index, int count) const;

  const codegen::LoopSpec& spec_;
  std::vector<ArrayCheck> arrays_;
  int worker_, step_;
};

/// Makes `guard` the calling thread's access guard for the scope.
struct GuardScope {
  explicit GuardScope(const AccessGuard* g) { current_access_guard() = g; }
  ~GuardScope() { current_access_guard() = nullptr; }
  GuardScope(const GuardScope&) = delete;
  GuardScope& operator=(const GuardScope&) = delete;
};

/// The checks for `cell` of `sched`: arrays whose blocks follow the partition fields may be
/// touched only inside the cell's footprint; `footprints` false (skewed orders, whose cells are
/// not boxes of the arrays) allows every element.
std::vector<ArrayCheck> cell_checks(const codegen::LoopSpec& spec,
                                    const std::vector<ArrayBinding>& arrays,
                                    const std::vector<int>& spec_index, const Schedule& sched,
                                    int cell, bool footprints);

} // namespace rotor::detail
