// The GPU executor: a `device(gpu)` loop (or any loop of a program built with
// `rotor-cc --device=gpu`) whose translation unit nvcc compiled runs here when this process has a
// CUDA device. The schedule is host C++ (conflict-free waves over the plan's conflict fields,
// rotor/gpu/WaveSchedule.h); the launch is the loop's own DeviceRunner (detail/CudaRunner.cuh).
// Without a device, or for what the executor does not run yet, the loop runs on the CPU
// executors after one line on stderr naming the loop and the reason.

#include "Comm.h"
#include "Executor.h"
#include "GpuSettings.h"
#include "LoopWhere.h"
#include "OrderLog.h"
#include "Schedule.h"

#include "rotor/gpu/WaveSchedule.h"
#include "rotor/runtime/detail/DeviceResidency.h"

#include <cstdio>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace rotor::detail {

using codegen::Kind;

namespace {

/// Device memory kept free for CUDA's own use when --rotor-gpu-memory is not given.
constexpr std::size_t k_free_margin = std::size_t{256} << 20;

/// The key fields whose shared values order two records: none for independent, the partition
/// field of one_d, both fields of a rotation.
std::vector<int> conflict_fields(const codegen::LoopSpec& spec, const SpaceAccess& space) {
  return spec.kind == Kind::independent ? std::vector<int>{} : partition_fields(spec, space);
}

/// Device bytes a device loop may use, records kept resident included: --rotor-gpu-memory, else
/// the free memory plus what resident records hold, less a margin.
std::size_t gpu_limit(DeviceRunner& device) {
  if (const std::uint64_t given = gpu_memory_limit(); given != 0) {
    return static_cast<std::size_t>(given);
  }
  const std::size_t usable = device.free_bytes() + device_ledger().resident_bytes();
  return usable > k_free_margin ? usable - k_free_margin : 0;
}

/// Across ranks the GPU executor runs only loops whose ranks need not exchange anything but
/// reduction partials: each rank runs its own share of a distributed dataset on its GPU, no array
/// is written and no record is (arrays written on several GPUs would need the CPU executors'
/// block moves and syncs). Empty when the loop is such a loop.
std::string multi_rank_refusal(const codegen::LoopSpec& spec, SpaceAccess& space,
                               const ExecutionInfo& info) {
  const std::string ranks = std::to_string(comm().size()) + " ranks";
  if (!space.distributed() || info.placement != Placement::distributed) {
    return ranks + " over a dataset every rank holds whole (the GPU executor splits no records "
                   "between ranks; load it distributed)";
  }
  for (const codegen::ArraySpec& a : spec.arrays) {
    if (a.written) {
      return ranks + " and the loop writes array " + a.name +
             " (the GPU executor syncs no arrays between ranks yet)";
    }
  }
  if (spec.writes_records) {
    return ranks + " and the loop writes its records (not on the GPU across ranks yet)";
  }
  return {};
}

/// Why the loop cannot run on the GPU executor for reasons alike on every rank; empty when none.
std::string plan_refusal(const codegen::LoopSpec& spec, SpaceAccess& space,
                         const ExecutionInfo& info) {
  if (space.is_index_space()) {
    return "the GPU executor runs loops over a Dataset, not an IndexSpace";
  }
  if (info.kind != Kind::independent && info.kind != Kind::one_d && info.kind != Kind::rotation) {
    return std::string("plan ") + kind_name(info.kind) + " has no GPU executor yet";
  }
  for (const codegen::ArraySpec& a : spec.arrays) {
    if (a.role == codegen::Role::buffered) {
      return std::string("buffered array ") + a.name + " is not kept on the GPU yet";
    }
  }
  return comm().size() > 1 ? multi_rank_refusal(spec, space, info) : std::string();
}

/// Why this rank's device cannot run the loop (none, or too little memory); empty when it can.
std::string device_refusal(SpaceAccess& space, std::size_t array_bytes, DeviceRunner& device) {
  if (std::string why = device.unavailable(); !why.empty()) {
    return why;
  }
  const std::size_t need = array_bytes + device.record_bytes_needed(space.local_count());
  const std::uint64_t given = gpu_memory_limit();
  const std::size_t limit = gpu_limit(device);
  if (need > limit) {
    return "its records and arrays need " + std::to_string(need) +
           " bytes of device memory, over " +
           (given != 0 ? "--rotor-gpu-memory=" + std::to_string(given)
                       : "the free " + std::to_string(device.free_bytes()) +
                             " (and resident records) less a margin") +
           " (blocks are not streamed by the executor yet)";
  }
  return {};
}

/// Why the loop cannot run on the GPU executor; empty when it can. Every rank decides alike: a
/// device one rank lacks sends every rank to the CPU executors (one allreduce when there are
/// several ranks and the plan allows the GPU).
std::string gpu_refusal(const codegen::LoopSpec& spec, SpaceAccess& space,
                        const ExecutionInfo& info, std::size_t array_bytes, DeviceRunner& device) {
  if (std::string why = plan_refusal(spec, space, info); !why.empty()) {
    return why;
  }
  const std::string order = order_wanted() ? "--rotor-record-order and --rotor-validate record "
                                             "CPU orders"
                                           : "";
  if (comm().size() > 1 && !order.empty()) {
    return order; // before the device: alike on every rank
  }
  std::string why = device_refusal(space, array_bytes, device);
  if (why.empty()) {
    why = order; // one rank: a missing device is said first
  }
  if (comm().size() > 1) {
    std::int64_t able = why.empty() ? 1 : 0;
    comm().allreduce_min(&able, 1);
    if (able == 0 && why.empty()) {
      why = "another rank's GPU cannot run it";
    }
  }
  return why;
}

/// One line per loop location and reason, however often the loop runs.
void note_cpu_fallback(const codegen::LoopSpec& spec, const std::string& why) {
  static std::mutex mutex;
  static std::set<std::string> said;
  const std::string line =
      "rotor: " + why + "; device(gpu) loop at " + loop_where(spec) + " runs on the CPU";
  const std::lock_guard<std::mutex> lock(mutex);
  if (said.insert(line).second) {
    note(line);
  }
}

/// The conflict-free waves of the local records over `fields` (build_key_waves).
DeviceWaves key_waves(SpaceAccess& space, const std::vector<int>& fields) {
  const std::size_t n = space.local_count();
  const auto nf = fields.size();
  std::vector<std::int64_t> keys(n * nf);
  std::vector<std::int64_t> all(static_cast<std::size_t>(space.key_count()) + 1);
  for (std::size_t r = 0; r < n && nf > 0; ++r) {
    space.keys(r, all.data());
    for (std::size_t f = 0; f < nf; ++f) {
      keys[r * nf + f] = all[static_cast<std::size_t>(fields[f])];
    }
  }
  gpu::Waves waves = gpu::build_key_waves(keys.data(), n, static_cast<int>(nf));
  DeviceWaves out;
  out.order = std::move(waves.order);
  out.wave_start = std::move(waves.wave_start);
  return out;
}

class GpuExecutor final : public Executor {
public:
  std::string run(LoopRun& run) override {
    DeviceRunner& device = *run.runner.device();
    DeviceExecution ex;
    ex.fields = conflict_fields(run.spec, run.space);
    ex.schedule = [&run, &ex] { return key_waves(run.space, ex.fields); };
    ex.writes_records = run.spec.writes_records;
    for (const codegen::ArraySpec& a : run.spec.arrays) {
      ex.array_written.push_back(a.written);
    }
    ex.limit = gpu_limit(device);
    const DeviceRunSummary done = device.run(ex);
    return "gpu: " + std::to_string(done.waves) + " waves over " +
           std::to_string(ex.fields.size()) + " conflict fields, largest " +
           std::to_string(done.largest_wave) + " records" +
           (done.records_reused ? ", records resident from the last execution" : "");
  }
};

} // namespace

bool gpu_runs_loop(const codegen::LoopSpec& spec, SpaceAccess& space, const ExecutionInfo& info,
                   std::size_t array_bytes, CellRunner& runner) {
  DeviceRunner* device = runner.device();
  if (spec.device != codegen::Device::gpu || device == nullptr) {
    return false; // a CPU loop, or a body no compiler built for a GPU: as before, no note
  }
  const std::string why = gpu_refusal(spec, space, info, array_bytes, *device);
  if (!why.empty()) {
    note_cpu_fallback(spec, why);
  }
  return why.empty();
}

std::unique_ptr<Executor> make_gpu_executor() {
  return std::make_unique<GpuExecutor>();
}

} // namespace rotor::detail
