#include "rotor/gpu/Kernels.h"
#include "rotor/gpu/StreamedRotation.h"

#include <cuda_runtime.h>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>

namespace rotor::gpu {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    throw std::runtime_error(std::string("CUDA: ") + what + ": " + cudaGetErrorString(e));
  }
}

struct DeviceBuffer {
  char* ptr = nullptr;
  explicit DeviceBuffer(std::uint64_t bytes) {
    check(cudaMalloc(reinterpret_cast<void**>(&ptr), bytes == 0 ? 1 : bytes), "cudaMalloc");
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { cudaFree(ptr); }
};

/// Page-locks a host range for the run, so cudaMemcpyAsync really overlaps the kernels.
struct PinnedRange {
  void* ptr = nullptr;
  PinnedRange(void* p, std::size_t bytes) {
    if (bytes != 0) {
      check(cudaHostRegister(p, bytes, cudaHostRegisterDefault), "cudaHostRegister");
      ptr = p;
    }
  }
  PinnedRange(const PinnedRange&) = delete;
  PinnedRange& operator=(const PinnedRange&) = delete;
  ~PinnedRange() {
    if (ptr != nullptr) {
      cudaHostUnregister(ptr);
    }
  }
};

struct Streams {
  cudaStream_t compute = nullptr, copy = nullptr;
  std::vector<cudaEvent_t> step_done; ///< per step, on the compute stream
  cudaEvent_t copies_done = nullptr;  ///< re-recorded before each step on the copy stream
  explicit Streams(std::size_t steps) : step_done(steps, nullptr) {
    check(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaStreamCreateWithFlags(&copy, cudaStreamNonBlocking), "cudaStreamCreate");
    for (auto& e : step_done) {
      check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
    }
    check(cudaEventCreateWithFlags(&copies_done, cudaEventDisableTiming), "cudaEventCreate");
  }
  Streams(const Streams&) = delete;
  Streams& operator=(const Streams&) = delete;
  ~Streams() {
    for (auto e : step_done) {
      cudaEventDestroy(e);
    }
    cudaEventDestroy(copies_done);
    cudaStreamDestroy(compute);
    cudaStreamDestroy(copy);
  }
};

/// Host and device addresses of every block, and the copies of a plan issued on streams.
class Mover {
public:
  Mover(const BlockedRatings& r, std::vector<char>& records, std::vector<float>& W,
        std::vector<float>& H, int k, const MemoryPlan& plan)
      : r_(r), records_(records), W_(W), H_(H), k_(k), plan_(plan) {
    for (int kind = 0; kind < k_block_kinds; ++kind) {
      slots_[kind] = std::make_unique<DeviceBuffer>(static_cast<std::uint64_t>(plan.slots[kind]) *
                                                    plan.slot_bytes[kind]);
    }
  }

  char* slot(BlockKind kind, int s) const {
    const int k = static_cast<int>(kind);
    return slots_[k]->ptr + static_cast<std::uint64_t>(s) * plan_.slot_bytes[k];
  }

  void issue(const Transfer& t, Streams& streams) {
    if (t.after_step >= 0) {
      check(cudaStreamWaitEvent(streams.copy,
                                streams.step_done[static_cast<std::size_t>(t.after_step)], 0),
            "cudaStreamWaitEvent");
    }
    char* device = slot(t.kind, t.slot);
    char* host = host_block(t.kind, t.block);
    const bool up = t.direction == Transfer::Direction::upload;
    check(cudaMemcpyAsync(up ? device : host, up ? host : device, t.bytes,
                          up ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, streams.copy),
          up ? "upload" : "download");
  }

private:
  char* host_block(BlockKind kind, int block) const {
    if (kind == BlockKind::records) {
      return records_.data() + r_.block_start[static_cast<std::size_t>(block)] * 12;
    }
    auto& rows = kind == BlockKind::user_rows ? W_ : H_;
    const std::int64_t extent = kind == BlockKind::user_rows ? r_.users : r_.items;
    return reinterpret_cast<char*>(rows.data() + block_first_key(block, extent, r_.blocks) * k_);
  }

  const BlockedRatings& r_;
  std::vector<char>& records_;
  std::vector<float>& W_;
  std::vector<float>& H_;
  int k_;
  const MemoryPlan& plan_;
  std::unique_ptr<DeviceBuffer> slots_[k_block_kinds];
};

/// Every block's wave offsets on the device, one array, and each block's launch shape.
struct WaveTables {
  std::vector<std::int64_t> offset; ///< per block: its first entry in the device array
  std::vector<WaveLaunch> launch;
  std::unique_ptr<DeviceBuffer> device;
  std::uint64_t bytes = 0;
  WaveTables(const BlockedRatings& r, int k) {
    std::vector<std::int64_t> all;
    for (const auto& ws : r.wave_start) {
      offset.push_back(static_cast<std::int64_t>(all.size()));
      launch.push_back(wave_launch(ws, k));
      all.insert(all.end(), ws.begin(), ws.end());
    }
    bytes = all.size() * sizeof(std::int64_t);
    device = std::make_unique<DeviceBuffer>(bytes);
    check(cudaMemcpy(device->ptr, all.data(), bytes, cudaMemcpyHostToDevice), "upload waves");
  }
};

} // namespace

struct ResidentRotation::Impl {
  const BlockedRatings& r;
  int k;
  WaveTables waves;
  DeviceBuffer records; ///< users, then items, then values of all positions
  Impl(const BlockedRatings& rr, int kk)
      : r(rr), k(kk), waves(rr, kk), records(static_cast<std::uint64_t>(rr.user.size()) * 12) {
    const std::size_t n = r.user.size();
    check(cudaMemcpy(records.ptr, r.user.data(), n * 4, cudaMemcpyHostToDevice), "upload");
    check(cudaMemcpy(records.ptr + n * 4, r.item.data(), n * 4, cudaMemcpyHostToDevice), "upload");
    check(cudaMemcpy(records.ptr + n * 8, r.value.data(), n * 4, cudaMemcpyHostToDevice), "upload");
  }
};

ResidentRotation::ResidentRotation(const BlockedRatings& r, int k)
    : impl_(std::make_unique<Impl>(r, k)) {}

ResidentRotation::~ResidentRotation() = default;

std::uint64_t ResidentRotation::device_bytes() const {
  return static_cast<std::uint64_t>(impl_->r.user.size()) * 12 + impl_->waves.bytes;
}

void ResidentRotation::run(const std::vector<BlockId>& order, float* d_W, float* d_H, float mean,
                           float lr, float reg, float* d_err2) const {
  const BlockedRatings& r = impl_->r;
  const std::size_t n = r.user.size();
  const auto* user = reinterpret_cast<const std::int32_t*>(impl_->records.ptr);
  const auto* item = reinterpret_cast<const std::int32_t*>(impl_->records.ptr + n * 4);
  const auto* value = reinterpret_cast<const float*>(impl_->records.ptr + n * 8);
  for (const BlockId& id : order) {
    const int x = id.user_block * r.blocks + id.item_block;
    const auto start = r.block_start[static_cast<std::size_t>(x)];
    SgdBlock b;
    b.user = user + start;
    b.item = item + start;
    b.value = value + start;
    b.records = r.block_records(x);
    b.wave_start = reinterpret_cast<const std::int64_t*>(impl_->waves.device->ptr) +
                   impl_->waves.offset[static_cast<std::size_t>(x)];
    b.launch = impl_->waves.launch[static_cast<std::size_t>(x)];
    b.W = d_W;
    b.H = d_H;
    b.k = impl_->k;
    b.mean = mean;
    b.lr = lr;
    b.reg = reg;
    b.err2 = d_err2 == nullptr ? nullptr : d_err2 + start;
    sgd_block_waves(b, nullptr);
  }
}

StreamedRun run_streamed_rotation(const BlockedRatings& r, std::vector<float>& W,
                                  std::vector<float>& H, int k, float mean, float lr, float reg,
                                  const std::vector<BlockId>& order, std::uint64_t limit_bytes) {
  StreamedRun run;
  run.plan = plan_memory(order, block_bytes(r, k), limit_bytes);
  std::vector<char> records = records_slot_layout(r);
  const PinnedRange pin_records(records.data(), records.size());
  const PinnedRange pin_w(W.data(), W.size() * sizeof(float));
  const PinnedRange pin_h(H.data(), H.size() * sizeof(float));
  const WaveTables waves(r, k);
  run.metadata_bytes = waves.bytes;
  Mover mover(r, records, W, H, k, run.plan);
  Streams streams(order.size());
  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t s = 0; s < order.size(); ++s) {
    const PlannedStep& step = run.plan.steps[s];
    for (const Transfer& t : step.before) {
      mover.issue(t, streams);
    }
    check(cudaEventRecord(streams.copies_done, streams.copy), "cudaEventRecord");
    check(cudaStreamWaitEvent(streams.compute, streams.copies_done, 0), "cudaStreamWaitEvent");
    const int x = step.block.user_block * r.blocks + step.block.item_block;
    const auto n = r.block_records(x);
    const char* rec = mover.slot(BlockKind::records, step.slot[0]);
    SgdBlock b;
    b.user = reinterpret_cast<const std::int32_t*>(rec);
    b.item = reinterpret_cast<const std::int32_t*>(rec + n * 4);
    b.value = reinterpret_cast<const float*>(rec + n * 8);
    b.records = n;
    b.wave_start = reinterpret_cast<const std::int64_t*>(waves.device->ptr) +
                   waves.offset[static_cast<std::size_t>(x)];
    b.launch = waves.launch[static_cast<std::size_t>(x)];
    b.W = reinterpret_cast<float*>(mover.slot(BlockKind::user_rows, step.slot[1]));
    b.user_base =
        static_cast<std::int32_t>(block_first_key(step.block.user_block, r.users, r.blocks));
    b.H = reinterpret_cast<float*>(mover.slot(BlockKind::item_rows, step.slot[2]));
    b.item_base =
        static_cast<std::int32_t>(block_first_key(step.block.item_block, r.items, r.blocks));
    b.k = k;
    b.mean = mean;
    b.lr = lr;
    b.reg = reg;
    sgd_block_waves(b, streams.compute);
    check(cudaEventRecord(streams.step_done[s], streams.compute), "cudaEventRecord");
    for (const Transfer& t : step.prefetch) {
      mover.issue(t, streams);
    }
  }
  for (const Transfer& t : run.plan.write_back) {
    mover.issue(t, streams);
  }
  check(cudaStreamSynchronize(streams.copy), "write-back");
  check(cudaStreamSynchronize(streams.compute), "compute");
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return run;
}

} // namespace rotor::gpu
