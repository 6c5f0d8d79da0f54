// The device residency's own rules (runtime/include/rotor/runtime/detail/DeviceResidency.h),
// with device memory emulated in host memory: when a copy is current, what staging keeps, and
// which copies leave the device to make room. GpuExecutorTest.cpp runs it through the executor.
#include "rotor/runtime/detail/DeviceResidency.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace rotor::test {
namespace {

using detail::DeviceWaves;
using detail::RecordsStamp;
using detail::ResidentRecords;

class CountingMemory final : public detail::DeviceMemory {
public:
  void* allocate(std::size_t bytes) override {
    live += bytes;
    void* p = ::operator new(bytes);
    sizes[p] = bytes;
    return p;
  }
  void release(void* device) noexcept override {
    if (device != nullptr) {
      live -= sizes[device];
      sizes.erase(device);
      ::operator delete(device);
    }
  }
  void upload(void* device, const void* host, std::size_t bytes) override {
    ++uploads;
    std::memcpy(device, host, bytes);
  }
  void download(void* host, const void* device, std::size_t bytes) override {
    std::memcpy(host, device, bytes);
  }
  std::map<void*, std::size_t> sizes;
  std::size_t live = 0;
  int uploads = 0;
};

/// Waves of n records: one wave, in reverse order (so staging must follow `order`).
DeviceWaves reversed(std::size_t n) {
  DeviceWaves w;
  w.order.resize(n);
  std::iota(w.order.rbegin(), w.order.rend(), 0);
  w.wave_start = {0, static_cast<std::int64_t>(n)};
  return w;
}

detail::RecordsRequest request(const std::vector<int>& host, std::uint64_t version,
                               std::size_t limit) {
  detail::RecordsRequest r;
  r.stamp = {host.data(), host.size(), version, {0, 1}};
  r.host = reinterpret_cast<const char*>(host.data());
  r.record_bytes = sizeof(int);
  r.limit = limit;
  return r;
}

TEST(DeviceResidency, StagesInWaveOrderAndServesTheSameRecordsOverNoMoreFields) {
  CountingMemory memory;
  std::vector<int> host = {10, 11, 12, 13};
  std::shared_ptr<void> slot;
  int schedules = 0;
  const auto schedule = [&] {
    ++schedules;
    return reversed(host.size());
  };
  ResidentRecords& copy =
      detail::resident_records(slot, memory, request(host, 5, 1 << 20), schedule);
  const int* device = static_cast<const int*>(copy.device());
  EXPECT_EQ(std::vector<int>(device, device + 4), (std::vector<int>{13, 12, 11, 10}));
  RecordsStamp stamp = request(host, 5, 0).stamp;
  EXPECT_TRUE(copy.current(stamp));
  for (auto change : {+[](RecordsStamp& s) { ++s.version; }, +[](RecordsStamp& s) { --s.count; },
                      +[](RecordsStamp& s) {
                        s.fields = {0, 2};
                      },
                      +[](RecordsStamp& s) { s.data = &s; }}) {
    RecordsStamp other = stamp;
    change(other);
    EXPECT_FALSE(copy.current(other));
  }
  for (std::vector<int> fewer : {std::vector<int>{0}, std::vector<int>{1, 0}, std::vector<int>{}}) {
    RecordsStamp other = stamp;
    other.fields = fewer;
    EXPECT_TRUE(copy.current(other))
        << "waves over user and item serve " << fewer.size() << " of them";
  }
  detail::resident_records(slot, memory, request(host, 5, 1 << 20), schedule);
  EXPECT_EQ(schedules, 1);
  EXPECT_EQ(memory.uploads, 1);
  detail::resident_records(slot, memory, request(host, 6, 1 << 20), schedule);
  EXPECT_EQ(schedules, 2);
  EXPECT_EQ(memory.uploads, 2);
  EXPECT_EQ(memory.live, 4 * sizeof(int)) << "the old copy was freed before the new one";
  slot.reset();
  EXPECT_EQ(memory.live, 0u);
}

TEST(DeviceResidency, WriteBackPutsRecordsInTheirPlacesAndFollowsTheEnginesBump) {
  CountingMemory memory;
  std::vector<int> host = {1, 2, 3};
  std::shared_ptr<void> slot;
  ResidentRecords& copy = detail::resident_records(slot, memory, request(host, 9, 1 << 20),
                                                   [&] { return reversed(host.size()); });
  static_cast<int*>(copy.device())[0] = 30; // the device wrote record 2 (position 0)
  copy.write_back(reinterpret_cast<char*>(host.data()), sizeof(int));
  EXPECT_EQ(host, (std::vector<int>{1, 2, 30}));
  EXPECT_FALSE(copy.current(request(host, 9, 0).stamp));
  EXPECT_TRUE(copy.current(request(host, 10, 0).stamp));
}

TEST(DeviceResidency, WithoutConflictFieldsOneLaunchCoversEveryWave) {
  DeviceWaves w;
  w.order = {4, 2, 0, 1, 3};
  w.wave_start = {0, 2, 4, 5};
  EXPECT_EQ(detail::launch_bounds(w, true), w.wave_start);
  EXPECT_EQ(detail::launch_bounds(w, false), (std::vector<std::int64_t>{0, 5}));
  EXPECT_EQ(detail::launch_bounds(DeviceWaves{}, false), (std::vector<std::int64_t>{0}));
}

TEST(DeviceResidency, AnEmptyDatasetIsNeverCurrentAndABadScheduleIsAnError) {
  CountingMemory memory;
  std::vector<int> none;
  std::shared_ptr<void> slot;
  ResidentRecords& copy = detail::resident_records(slot, memory, request(none, 0, 1 << 20),
                                                   [] { return DeviceWaves{}; });
  EXPECT_FALSE(copy.resident());
  EXPECT_FALSE(copy.current(request(none, 0, 0).stamp));
  std::vector<int> host = {1, 2, 3};
  EXPECT_THROW(
      detail::resident_records(slot, memory, request(host, 0, 1 << 20), [] { return reversed(2); }),
      std::logic_error);
  EXPECT_EQ(memory.live, 0u);
}

TEST(DeviceResidency, MakeRoomDropsOtherCopiesLeastRecentlyUsedFirst) {
  CountingMemory memory;
  std::vector<int> a(100, 1), b(200, 2), c(300, 3);
  std::shared_ptr<void> sa, sb, sc;
  const std::size_t big = 1 << 20;
  auto stage = [&](std::shared_ptr<void>& slot, const std::vector<int>& host, std::size_t limit) {
    return &detail::resident_records(slot, memory, request(host, 0, limit),
                                     [&] { return reversed(host.size()); });
  };
  ResidentRecords* ca = stage(sa, a, big);
  ResidentRecords* cb = stage(sb, b, big);
  ResidentRecords* cc = stage(sc, c, big);
  stage(sa, a, big); // a used again: b is now the least recently used
  detail::DeviceLedger& ledger = detail::device_ledger();
  const std::uint64_t evicted = ledger.evicted;
  // 2400 bytes resident; 400 more under 2500 needs 300 freed: b (800 bytes) goes, not a or c
  EXPECT_EQ(ledger.make_room(400, 2500, cc), 800u);
  EXPECT_TRUE(ca->resident());
  EXPECT_FALSE(cb->resident());
  EXPECT_TRUE(cc->resident());
  // the kept copy stays even when nothing else can make room
  EXPECT_EQ(ledger.make_room(big, 10, cc), 400u);
  EXPECT_FALSE(ca->resident());
  EXPECT_TRUE(cc->resident());
  EXPECT_EQ(ledger.evicted - evicted, 2u);
  EXPECT_EQ(memory.live, 1200u);
  EXPECT_EQ(ledger.make_room(0, 1200, nullptr), 0u) << "fits: nothing dropped";
}

} // namespace
} // namespace rotor::test
