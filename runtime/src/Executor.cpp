#include "Executor.h"

#include <stdexcept>

namespace rotor::detail {

using codegen::Kind;

std::unique_ptr<Executor> make_executor(const ExecutionInfo& info) {
  if (info.gpu) {
    return make_gpu_executor();
  }
  switch (info.kind) {
  case Kind::serial:
    return make_serial_executor();
  case Kind::independent:
    return make_independent_executor();
  case Kind::data_parallel:
    return make_data_parallel_executor();
  case Kind::one_d:
    return make_one_d_executor();
  case Kind::rotation:
    return make_rotation_executor();
  case Kind::wavefront:
    return make_wavefront_executor();
  case Kind::unimodular:
    return make_unimodular_executor();
  }
  throw std::logic_error("rotor: internal: no executor for plan kind " +
                         std::to_string(static_cast<int>(info.kind)));
}

std::vector<int> partition_fields(const codegen::LoopSpec& spec, const SpaceAccess& space) {
  std::vector<int> f = spec.fields;
  const Kind kind = spec.kind == Kind::unimodular ? spec.base : spec.kind;
  const bool one_step =
      kind == Kind::independent || kind == Kind::data_parallel || kind == Kind::one_d;
  if (f.empty() && space.is_index_space() && one_step) {
    f.push_back(0); // dense points: split the first dimension
  }
  if (one_step && f.size() > 1) {
    f.resize(1);
  }
  return f;
}

bool distributes_skewed(const codegen::LoopSpec& spec, const SpaceAccess& space) {
  return spec.kind == Kind::unimodular && !space.is_index_space() && !spec.matrix.empty() &&
         (spec.base == Kind::one_d || spec.base == Kind::wavefront || spec.base == Kind::rotation);
}

} // namespace rotor::detail
