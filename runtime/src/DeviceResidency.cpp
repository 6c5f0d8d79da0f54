#include "rotor/runtime/detail/DeviceResidency.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace rotor::detail {

std::vector<std::int64_t> launch_bounds(const DeviceWaves& waves, bool any_conflict_field) {
  if (any_conflict_field || waves.order.empty()) {
    return waves.wave_start;
  }
  return {0, static_cast<std::int64_t>(waves.order.size())};
}

ResidentRecords::ResidentRecords(DeviceMemory& memory) : memory_(memory) {
  device_ledger().add(this);
}

ResidentRecords::~ResidentRecords() {
  drop();
  device_ledger().remove(this);
}

void ResidentRecords::drop() noexcept {
  if (device_ != nullptr) {
    memory_.release(device_);
  }
  device_ = nullptr;
  bytes_ = 0;
  stamp_ = RecordsStamp{};
  waves_ = DeviceWaves{};
}

void ResidentRecords::stage(const RecordsStamp& stamp, DeviceWaves waves, const char* host,
                            std::size_t record_bytes) {
  drop();
  const std::size_t n = waves.order.size();
  if (n != stamp.count || waves.wave_start.empty() ||
      waves.wave_start.back() != static_cast<std::int64_t>(n)) {
    throw std::logic_error("rotor: internal: a wave schedule of " + std::to_string(n) +
                           " positions for " + std::to_string(stamp.count) + " records");
  }
  std::vector<char> staged(n * record_bytes);
  for (std::size_t p = 0; p < n; ++p) {
    std::memcpy(staged.data() + p * record_bytes,
                host + static_cast<std::size_t>(waves.order[p]) * record_bytes, record_bytes);
  }
  const std::size_t bytes = staged.size();
  void* device = bytes > 0 ? memory_.allocate(bytes) : nullptr;
  try {
    if (bytes > 0) {
      memory_.upload(device, staged.data(), bytes);
    }
  } catch (...) {
    memory_.release(device);
    throw;
  }
  device_ = device;
  bytes_ = bytes;
  stamp_ = stamp;
  waves_ = std::move(waves);
  if (device_ == nullptr) {
    stamp_.count = 0; // nothing staged: never current (an empty dataset schedules nothing)
  }
}

void ResidentRecords::write_back(char* host, std::size_t record_bytes) {
  const std::size_t n = waves_.order.size();
  if (device_ == nullptr || n == 0) {
    return;
  }
  std::vector<char> staged(n * record_bytes);
  try {
    memory_.download(staged.data(), device_, staged.size());
  } catch (...) {
    drop(); // the host records are the last ones both sides agree on
    throw;
  }
  for (std::size_t p = 0; p < n; ++p) {
    std::memcpy(host + static_cast<std::size_t>(waves_.order[p]) * record_bytes,
                staged.data() + p * record_bytes, record_bytes);
  }
  ++stamp_.version; // the engine's bump after a loop that writes records
}

std::size_t DeviceLedger::resident_bytes() const {
  std::size_t sum = 0;
  for (const ResidentRecords* c : copies_) {
    sum += c->bytes();
  }
  return sum;
}

std::size_t DeviceLedger::make_room(std::size_t need, std::size_t limit,
                                    const ResidentRecords* keep) {
  std::vector<ResidentRecords*> others;
  for (ResidentRecords* c : copies_) {
    if (c != keep && c->resident()) {
      others.push_back(c);
    }
  }
  std::sort(others.begin(), others.end(), [](const ResidentRecords* a, const ResidentRecords* b) {
    return a->last_use < b->last_use;
  });
  std::size_t used = resident_bytes(), freed = 0;
  for (ResidentRecords* c : others) {
    if (used + need <= limit) {
      break;
    }
    const std::size_t bytes = c->bytes();
    c->drop();
    used -= bytes;
    freed += bytes;
    ++evicted;
  }
  return freed;
}

void DeviceLedger::add(ResidentRecords* copy) {
  copies_.push_back(copy);
}

void DeviceLedger::remove(ResidentRecords* copy) noexcept {
  copies_.erase(std::remove(copies_.begin(), copies_.end(), copy), copies_.end());
}

DeviceLedger& device_ledger() {
  static DeviceLedger* ledger = new DeviceLedger; // never destroyed: datasets may outlive statics
  return *ledger;
}

ResidentRecords& resident_records(std::shared_ptr<void>& slot, DeviceMemory& memory,
                                  const RecordsRequest& request, const WaveScheduler& schedule) {
  if (!slot || &static_cast<ResidentRecords*>(slot.get())->memory() != &memory) {
    slot = std::make_shared<ResidentRecords>(memory);
  }
  auto& copy = *static_cast<ResidentRecords*>(slot.get());
  DeviceLedger& ledger = device_ledger();
  if (copy.current(request.stamp)) {
    ledger.make_room(request.other_bytes, request.limit, &copy);
    ledger.touch(copy);
    ++ledger.reused;
    return copy;
  }
  copy.drop();
  ledger.make_room(request.other_bytes + request.stamp.count * request.record_bytes, request.limit,
                   &copy);
  copy.stage(request.stamp, schedule(), request.host, request.record_bytes);
  ledger.touch(copy);
  ++ledger.staged;
  return copy;
}

} // namespace rotor::detail
