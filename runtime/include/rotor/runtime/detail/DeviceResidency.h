#pragma once
/// \file
/// Records that stay in device memory between executions of device loops (host C++, no CUDA;
/// the GPU side is a DeviceMemory, detail/CudaRunner.cuh). A dataset's records are staged on the
/// device in the wave order of the loop's schedule; the next execution over the same dataset
/// reuses that copy and its waves, uploading and scheduling nothing, while the host records are
/// unchanged: same storage, count and change counter (Dataset's `version_`, bumped by every
/// non-const access and by the runtime's moves), and the copy's waves were built over at least the
/// execution's conflict fields (waves conflict-free over fields G that keep every key's order in
/// each field of G are so over any subset of G: a one_d or independent loop reuses the waves of
/// a rotation over the same records; the other way round stages again). Records a loop
/// writes are copied back to the host after every execution, so host and device stay equal and
/// serial code reads the loop's writes as before. The copy belongs to the dataset (its device
/// slot) and is freed with it; a copy of the dataset starts without one.
///
/// Arrays are not kept: a DistArray counts no changes, and serial code may change one through
/// `data()` or a container view the runtime does not see, so every execution uploads the bound
/// arrays and downloads the ones the loop writes (docs/user/gpu.md).
///
/// Device memory: every resident copy of the process is in one ledger; an execution that needs
/// more than the limit leaves drops the least recently used copies of other datasets first.
/// Not for user code.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace rotor::detail {

/// Device memory as the residency uses it: CUDA (CudaRunner.cuh) or host memory in tests.
class DeviceMemory {
public:
  virtual ~DeviceMemory() = default;
  /// `bytes` of device memory; throws std::runtime_error naming the error when it fails.
  virtual void* allocate(std::size_t bytes) = 0;
  virtual void release(void* device) noexcept = 0;
  virtual void upload(void* device, const void* host, std::size_t bytes) = 0;
  virtual void download(void* host, const void* device, std::size_t bytes) = 0;
};

/// What a device copy of records was made from; the copy is current while all of it is equal.
struct RecordsStamp {
  const void* data = nullptr; ///< the host records' storage
  std::size_t count = 0;
  std::uint64_t version = 0; ///< the dataset's change counter
  std::vector<int> fields;   ///< the conflict fields the waves were built over
  /// Whether a copy made from this stamp serves an execution over `host`: the same records, and
  /// every conflict field of `host` among this stamp's fields.
  bool serves(const RecordsStamp& host) const {
    if (data != host.data || count != host.count || version != host.version) {
      return false;
    }
    for (int f : host.fields) {
      if (std::find(fields.begin(), fields.end(), f) == fields.end()) {
        return false;
      }
    }
    return true;
  }
};

/// The wave schedule of an execution: wave w is positions [wave_start[w], wave_start[w + 1]) of
/// `order` (local record indexes).
struct DeviceWaves {
  std::vector<std::int64_t> order;
  std::vector<std::int64_t> wave_start{0};
  int waves() const { return static_cast<int>(wave_start.size()) - 1; }
};

/// The launches of an execution over a copy staged in `waves`: one per wave, or a single one over
/// every record when the execution has no conflict fields (independent).
std::vector<std::int64_t> launch_bounds(const DeviceWaves& waves, bool any_conflict_field);

/// Computes the waves of the current records (called only when they are not resident).
using WaveScheduler = std::function<DeviceWaves()>;

/// One dataset's records on the device, in wave order (position p holds record order[p]).
class ResidentRecords {
public:
  explicit ResidentRecords(DeviceMemory& memory);
  ~ResidentRecords();
  ResidentRecords(const ResidentRecords&) = delete;
  ResidentRecords& operator=(const ResidentRecords&) = delete;

  bool resident() const { return device_ != nullptr; }
  bool current(const RecordsStamp& host) const { return resident() && stamp_.serves(host); }
  const void* device() const { return device_; }
  void* device() { return device_; }
  std::size_t bytes() const { return bytes_; }
  const DeviceWaves& waves() const { return waves_; }
  DeviceMemory& memory() const { return memory_; }
  /// Frees the device copy (eviction, or before staging again).
  void drop() noexcept;
  /// Stages `host`'s records (record_bytes each) in the waves' order on the device.
  void stage(const RecordsStamp& stamp, DeviceWaves waves, const char* host,
             std::size_t record_bytes);
  /// After an execution that wrote records: copies them back to their host places. Host and
  /// device then hold the same records, so the copy stays current across the change counter's
  /// bump the engine makes after every loop that writes records (Engine.cpp); any later change
  /// by serial code bumps it again.
  void write_back(char* host, std::size_t record_bytes);
  /// Ledger bookkeeping: when this copy was last used (a process-wide tick).
  std::uint64_t last_use = 0;

private:
  DeviceMemory& memory_;
  RecordsStamp stamp_;
  DeviceWaves waves_;
  void* device_ = nullptr;
  std::size_t bytes_ = 0;
};

/// Every resident copy of the process.
class DeviceLedger {
public:
  /// Frees resident copies other than `keep` (least recently used first) until `need` more bytes
  /// fit under `limit` beside the copies left; returns the bytes freed. Copies that must go
  /// for `need` to fit go even when `need` still does not fit (the caller checked `need` alone).
  std::size_t make_room(std::size_t need, std::size_t limit, const ResidentRecords* keep);
  /// Bytes of every resident copy.
  std::size_t resident_bytes() const;
  void add(ResidentRecords* copy);
  void remove(ResidentRecords* copy) noexcept;
  /// Marks `copy` used now (for the least-recently-used order).
  void touch(ResidentRecords& copy) { copy.last_use = ++tick_; }
  /// How many copies were staged, reused and dropped to make room (for tests and --rotor-verbose).
  std::uint64_t staged = 0, reused = 0, evicted = 0;

private:
  std::vector<ResidentRecords*> copies_;
  std::uint64_t tick_ = 0;
};

/// The process's ledger.
DeviceLedger& device_ledger();

/// What one execution's records need on the device.
struct RecordsRequest {
  RecordsStamp stamp;
  const char* host = nullptr; ///< the local records (stamp.count of them)
  std::size_t record_bytes = 0;
  std::size_t other_bytes = 0; ///< what else the execution allocates (arrays, partials)
  std::size_t limit = 0;       ///< device bytes it may use, resident copies included
};

/// The device copy of the request's records for this execution, kept in `slot` (the dataset's
/// device slot): the resident copy when current (no upload, no scheduling), else the records
/// staged anew in the order of `schedule()`'s waves, after other datasets' copies were dropped as
/// the limit requires.
ResidentRecords& resident_records(std::shared_ptr<void>& slot, DeviceMemory& memory,
                                  const RecordsRequest& request, const WaveScheduler& schedule);

} // namespace rotor::detail
