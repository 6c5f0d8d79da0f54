#pragma once
/// \file
/// The GPU side of a `device(gpu)` loop (nvcc only; included by RunLoop.h under __CUDACC__):
/// CudaRunner implements DeviceRunner for one loop's body, records, arrays and reductions. It
/// keeps the records on the device in the executor's wave order (reused by the next execution
/// while the dataset is unchanged: DeviceResidency.h), copies every bound array to the device,
/// runs each wave as one kernel launch with one thread per record calling the body with
/// rotor::ArrayRefs to device memory and a per-record partial of each reduction, then copies the
/// written arrays (and written records) back; the partials are summed on the device in a fixed
/// order (DeviceReduce.h) and one value per thread block comes back.
/// The body must be an extended `__host__ __device__` lambda (rotor-cc emits one for device
/// loops); other bodies get no CudaRunner and run on the CPU. Not for user code.

#include "rotor/distarray/ArrayRef.h"
#include "rotor/distarray/Dataset.h"
#include "rotor/distarray/DistArray.h"
#include "rotor/distarray/detail/DatasetInternals.h"
#include "rotor/runtime/detail/DeviceReduce.h"
#include "rotor/runtime/detail/DeviceResidency.h"
#include "rotor/runtime/detail/DeviceRunner.h"
#include "rotor/runtime/detail/LoopFrame.h"

#include <cuda/std/tuple>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace rotor::detail {

inline void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    throw std::runtime_error(std::string("rotor: CUDA ") + what + ": " + cudaGetErrorName(e) +
                             ": " + cudaGetErrorString(e));
  }
}

/// cudaMalloc'ed memory for `n` objects of T, freed with the buffer.
template <class T> class DeviceBuffer {
public:
  explicit DeviceBuffer(std::size_t n) : n_(n) {
    if (n > 0) {
      cuda_check(cudaMalloc(reinterpret_cast<void**>(&p_), n * sizeof(T)), "cudaMalloc");
    }
  }
  ~DeviceBuffer() { cudaFree(p_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  T* get() const { return p_; }
  void upload(const T* host) {
    cuda_check(cudaMemcpy(p_, host, n_ * sizeof(T), cudaMemcpyHostToDevice), "upload");
  }
  void download(T* host) const {
    cuda_check(cudaMemcpy(host, p_, n_ * sizeof(T), cudaMemcpyDeviceToHost), "download");
  }

private:
  T* p_ = nullptr;
  std::size_t n_;
};

/// Whether the machine has an NVIDIA driver (libcuda) at all: without one the CUDA runtime
/// reports cudaErrorInsufficientDriver, which on a machine with a GPU means a driver too old.
inline bool cuda_driver_present() {
  void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (driver != nullptr) {
    dlclose(driver);
  }
  return driver != nullptr;
}

/// This process's rank among the ranks of its node, from the launcher's environment (Open MPI,
/// MPICH, MVAPICH, Slurm); 0 when none says.
inline int node_local_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                           "MV2_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"}) {
    if (const char* v = std::getenv(name); v != nullptr && *v >= '0' && *v <= '9') {
      return std::atoi(v);
    }
  }
  return 0;
}

/// Empty when this process sees a CUDA device; else why not. Probed once. The device is the
/// node-local rank modulo the node's devices (one rank per GPU; more ranks than GPUs share).
inline const std::string& cuda_unavailable() {
  static const std::string why = [] {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e == cudaErrorNoDevice || (e == cudaSuccess && count == 0) ||
        (e == cudaErrorInsufficientDriver && !cuda_driver_present())) {
      return std::string("no CUDA device");
    }
    if (e != cudaSuccess) {
      return std::string("no usable CUDA device (") + cudaGetErrorName(e) + ": " +
             cudaGetErrorString(e) + ")";
    }
    if (const cudaError_t set = cudaSetDevice(node_local_rank() % count); set != cudaSuccess) {
      return std::string("CUDA device ") + std::to_string(node_local_rank() % count) +
             " unusable (" + cudaGetErrorName(set) + ": " + cudaGetErrorString(set) + ")";
    }
    return std::string();
  }();
  return why;
}

/// Makes this rank's device (cuda_unavailable) current on the calling thread.
inline void use_cuda_device() {
  int count = 0;
  if (cuda_unavailable().empty() && cudaGetDeviceCount(&count) == cudaSuccess && count > 0) {
    cuda_check(cudaSetDevice(node_local_rank() % count), "cudaSetDevice");
  }
}

/// One wave: thread t runs record records[t] with the arrays `refs` and writes its reductions'
/// partials (each starting at zero) to partials[j][t].
template <class Body, class Record, class Refs, class Parts, class Locals>
__global__ void rotor_wave_kernel(Body body, Record* records, std::int64_t count, Refs refs,
                                  Parts partials) {
  const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= count) {
    return;
  }
  Locals locals{};
  cuda::std::apply(
      [&](auto&... ref) {
        cuda::std::apply([&](auto&... local) { body(records[t], ref..., local...); }, locals);
      },
      refs);
  cuda::std::apply(
      [&](auto*... part) {
        cuda::std::apply([&](auto&... local) { ((part[t] = local), ...); }, locals);
      },
      partials);
}

/// cudaMalloc and cudaMemcpy for the records kept on the device (DeviceResidency.h).
class CudaMemory final : public DeviceMemory {
public:
  void* allocate(std::size_t bytes) override {
    void* p = nullptr;
    cuda_check(cudaMalloc(&p, bytes), "cudaMalloc (records)");
    return p;
  }
  void release(void* device) noexcept override { cudaFree(device); }
  void upload(void* device, const void* host, std::size_t bytes) override {
    cuda_check(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice), "upload (records)");
  }
  void download(void* host, const void* device, std::size_t bytes) override {
    cuda_check(cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost), "download (records)");
  }
};

/// The process's CudaMemory; never destroyed (a dataset may free its records' device copy
/// after static destructors ran: cudaFree then fails quietly).
inline CudaMemory& cuda_memory() {
  static CudaMemory* memory = new CudaMemory;
  return *memory;
}

/// The per-record partials values[0..n) summed in the fixed order of DeviceReduce.h: block b
/// writes its sum to block_sums[b].
template <class R>
__global__ void rotor_reduce_kernel(const R* values, std::int64_t n, R* block_sums) {
  __shared__ R x[k_reduce_threads];
  const int t = static_cast<int>(threadIdx.x);
  x[t] = reduce_thread_sum(values, n, std::int64_t{blockIdx.x} * k_reduce_threads + t);
  __syncthreads();
  for (int s = k_reduce_threads / 2; s > 0; s /= 2) {
    reduce_pair_step(x, t, s);
    __syncthreads();
  }
  if (t == 0) {
    block_sums[blockIdx.x] = x[0];
  }
}

/// The sum of the device's values[0..n) in DeviceReduce.h's order (equal to
/// reduce_in_device_order on the host): one launch, k_reduce_blocks values copied back.
template <class R> R reduce_on_device(const R* values, std::int64_t n) {
  DeviceBuffer<R> block_sums(k_reduce_blocks);
  rotor_reduce_kernel<R><<<k_reduce_blocks, k_reduce_threads>>>(values, n, block_sums.get());
  cuda_check(cudaGetLastError(), "reduction kernel launch");
  std::vector<R> sums(k_reduce_blocks);
  block_sums.download(sums.data());
  R total = R(0);
  for (const R& s : sums) {
    total += s;
  }
  return total;
}

template <class Record, class Body, class Loop> class CudaRunner;

template <class Record, class Body, class... Arrays, class... Reductions, class Capable>
class CudaRunner<Record, Body,
                 BodyLoop<Body, std::tuple<Arrays&...>, std::tuple<Reductions&...>, Capable>>
    final : public DeviceRunner {
public:
  CudaRunner(Dataset<Record>& d, Body& body, const LoopFrame& frame)
      : d_(d), body_(body), frame_(frame) {}

  std::string unavailable() override { return cuda_unavailable(); }
  std::size_t free_bytes() override {
    use_cuda_device();
    std::size_t free = 0, total = 0;
    return cudaMemGetInfo(&free, &total) == cudaSuccess ? free : 0;
  }
  std::size_t record_bytes_needed(std::size_t records) override {
    return records * (sizeof(Record) + (std::size_t{0} + ... + sizeof(Reductions)));
  }

  DeviceRunSummary run(const DeviceExecution& ex) override {
    use_cuda_device();
    static_assert(std::is_trivially_copyable_v<Record>, "device records are copied bytewise");
    std::vector<Record>& host = DatasetInternals::records(d_);
    RecordsRequest request;
    request.stamp = {host.data(), host.size(), DatasetInternals::version(d_), ex.fields};
    request.host = reinterpret_cast<const char*>(host.data());
    request.record_bytes = sizeof(Record);
    request.other_bytes = record_bytes_needed(host.size()) - host.size() * sizeof(Record) +
                          array_bytes(ex.slot, std::index_sequence_for<Arrays...>{});
    request.limit = ex.limit;
    const bool reused = DatasetInternals::device_copy(d_) &&
                        static_cast<ResidentRecords*>(DatasetInternals::device_copy(d_).get())
                            ->current(request.stamp);
    ResidentRecords& records =
        resident_records(DatasetInternals::device_copy(d_), cuda_memory(), request, ex.schedule);
    const std::vector<std::int64_t> bounds = launch_bounds(records.waves(), !ex.fields.empty());
    try {
      launch(ex, records, bounds, std::index_sequence_for<Arrays...>{},
             std::index_sequence_for<Reductions...>{});
      if (ex.writes_records) {
        records.write_back(reinterpret_cast<char*>(host.data()), sizeof(Record));
      }
    } catch (...) {
      records.drop(); // a failed launch may have left the device records half written
      throw;
    }
    DeviceRunSummary summary;
    summary.waves = static_cast<int>(bounds.size()) - 1;
    for (int w = 0; w < summary.waves; ++w) {
      summary.largest_wave = std::max(summary.largest_wave, bounds[w + 1] - bounds[w]);
    }
    summary.records_reused = reused;
    return summary;
  }

private:
  template <std::size_t... I> std::size_t array_bytes(int slot, std::index_sequence<I...>) const {
    void* const* objects = frame_.arrays(slot);
    return (std::size_t{0} + ... +
            (static_cast<std::size_t>(static_cast<Arrays*>(objects[I])->size()) *
             sizeof(typename Arrays::value_type)));
  }

  /// Uploads the slot's arrays, runs one launch per range [bounds[w], bounds[w + 1]) of the
  /// resident records, downloads the arrays the loop writes and adds the partials.
  template <std::size_t... I, std::size_t... J>
  void launch(const DeviceExecution& ex, ResidentRecords& resident,
              const std::vector<std::int64_t>& bounds, std::index_sequence<I...>,
              std::index_sequence<J...>) {
    const std::size_t count = resident.waves().order.size();
    auto* records = static_cast<Record*>(resident.device());
    void* const* objects = frame_.arrays(ex.slot);
    std::tuple<Arrays&...> arrays(*static_cast<Arrays*>(objects[I])...);
    std::tuple<std::unique_ptr<DeviceBuffer<typename Arrays::value_type>>...> copies(
        std::make_unique<DeviceBuffer<typename Arrays::value_type>>(
            static_cast<std::size_t>(std::get<I>(arrays).size()))...);
    (std::get<I>(copies)->upload(std::get<I>(arrays).data()), ...);
    using Refs = cuda::std::tuple<ArrayRef<typename Arrays::value_type, Arrays::rank>...>;
    const Refs refs = cuda::std::make_tuple(ArrayRef<typename Arrays::value_type, Arrays::rank>(
        std::get<I>(copies)->get(), std::get<I>(arrays).shape().data())...);
    std::tuple<std::unique_ptr<DeviceBuffer<std::remove_reference_t<Reductions>>>...> parts(
        std::make_unique<DeviceBuffer<std::remove_reference_t<Reductions>>>(count)...);
    using Locals = cuda::std::tuple<std::remove_reference_t<Reductions>...>;
    using Parts = cuda::std::tuple<std::remove_reference_t<Reductions>*...>;
    constexpr int threads = 256;
    for (std::size_t w = 0; w + 1 < bounds.size(); ++w) {
      const std::int64_t first = bounds[w];
      const std::int64_t n = bounds[w + 1] - first;
      const auto blocks = static_cast<unsigned>((n + threads - 1) / threads);
      rotor_wave_kernel<Body, Record, Refs, Parts, Locals>
          <<<blocks, threads>>>(body_, records + first, n, refs,
                                cuda::std::make_tuple((std::get<J>(parts)->get() + first)...));
      cuda_check(cudaGetLastError(), "wave kernel launch");
    }
    cuda_check(cudaDeviceSynchronize(), "wave kernel");
    ((ex.array_written.at(I) ? std::get<I>(copies)->download(std::get<I>(arrays).data()) : void()),
     ...);
    (add_partials<J>(std::get<J>(parts), ex.slot, count), ...);
  }

  /// Adds the per-record partials of reduction J to the slot's partial, summed on the device in
  /// DeviceReduce.h's fixed order.
  template <std::size_t J, class Buffer>
  void add_partials(const std::unique_ptr<Buffer>& device, int slot, std::size_t count) {
    using R = std::remove_reference_t<std::tuple_element_t<J, std::tuple<Reductions...>>>;
    R& into = *static_cast<R*>(frame_.reductions(slot)[J]);
    into += reduce_on_device(device->get(), static_cast<std::int64_t>(count));
  }

  Dataset<Record>& d_;
  Body& body_;
  const LoopFrame& frame_;
};

/// Whether a loop's types can run on a GPU: non-const DistArrays, arithmetic reductions, no
/// sparse worker buffers, a body that returns nothing (no `break`).
template <class Record, class Loop> struct DeviceCapable : std::false_type {};
template <class Record, class Body, class... Arrays, class... Reductions, class Capable>
struct DeviceCapable<Record,
                     BodyLoop<Body, std::tuple<Arrays&...>, std::tuple<Reductions&...>, Capable>> {
  static constexpr bool value =
      ((IsDistArray<Arrays>::value && !std::is_const_v<Arrays>)&&...) &&
      (std::is_arithmetic_v<std::remove_reference_t<Reductions>> && ...) &&
      std::is_same_v<Capable, codegen::SparseCapable<>> &&
      std::is_void_v<std::invoke_result_t<
          Body&, Record&, ArrayRef<typename Arrays::value_type, Arrays::rank>..., Reductions&...>>;
};

/// The DeviceRunner of a device loop whose body cannot run on a GPU: it only says why, so the
/// loop runs on the CPU after one line naming the loop and the reason.
class DeviceUnsupported final : public DeviceRunner {
public:
  explicit DeviceUnsupported(std::string why) : why_(std::move(why)) {}
  std::string unavailable() override { return why_; }
  std::size_t free_bytes() override { return 0; }
  std::size_t record_bytes_needed(std::size_t) override { return 0; }
  DeviceRunSummary run(const DeviceExecution&) override {
    throw std::logic_error("rotor: internal: a GPU run of a loop the GPU cannot run (" + why_ +
                           ")");
  }

private:
  std::string why_;
};

/// The loop's DeviceRunner: a CudaRunner when its body can run on a GPU (an extended
/// __host__ __device__ lambda, as rotor-cc emits for device loops, with DistArray arrays,
/// arithmetic reductions and no `break`), else one that says why not (used only when the loop
/// is a device loop: LoopSpec::device).
template <class Record, class Loop, class Body>
std::unique_ptr<DeviceRunner> make_device_runner(Dataset<Record>& d, Body& body,
                                                 const LoopFrame& frame) {
#if defined(__CUDACC_EXTENDED_LAMBDA__)
  if constexpr (__nv_is_extended_host_device_lambda_closure_type(Body)) {
    if constexpr (DeviceCapable<Record, Loop>::value) {
      return std::make_unique<CudaRunner<Record, Body, Loop>>(d, body, frame);
    } else {
      return std::make_unique<DeviceUnsupported>(
          "its reductions or arrays cannot live on a GPU (rotor::Accumulator, const arrays)");
    }
  }
#endif
  (void)d, (void)body, (void)frame;
  return std::make_unique<DeviceUnsupported>(
      "its body was compiled for the CPU only (rotor-cc keeps the CPU body for break, "
      "private(...), container views and arrays passed to helpers)");
}

} // namespace rotor::detail
