// The GPU executor on a CPU: a device loop's body (shaped like rotor-cc's device lambda: ArrayRef
// parameters, a reduction partial) run through the engine with an emulated DeviceRunner that
// applies each wave the executor hands it in reverse record order, as a GPU's threads may. The
// executor's choice (device present or not, --rotor-gpu-memory), its wave schedule (no two
// records of a wave share a conflict key) and the result (bitwise the serial run in record
// order, whose per-key order the waves keep) are checked; tests/cuda runs the real launch.
#include "GpuSettings.h"
#include "LoopTestUtil.h"
#include "rotor/runtime/detail/LoopFrame.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

namespace rotor::test {
namespace {

using codegen::Kind;
using codegen::Role;

/// The body rotor-cc emits for SGD-MF's device loop (with g++: ROTOR_DEVICE_LAMBDA is empty).
auto device_mf_body(float lr, float reg) {
  return [=](const Rating& r, codegen::DeviceArray<DistArray<float, 2>> W,
             codegen::DeviceArray<DistArray<float, 2>> H, double& loss) {
    auto w = W.row(r.user);
    auto h = H.row(r.item);
    const float e = r.value - w.dot(h);
    loss += e * e;
    w += lr * (e * h - reg * w);
    h += lr * (e * w - reg * h);
  };
}

/// Device memory emulated in host memory, with counters (records only: DeviceResidency.h).
class HostMemory final : public detail::DeviceMemory {
public:
  void* allocate(std::size_t bytes) override {
    live += bytes;
    peak = std::max(peak, live);
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
    ++downloads;
    std::memcpy(host, device, bytes);
  }
  std::map<void*, std::size_t> sizes;
  std::size_t live = 0, peak = 0;
  int uploads = 0, downloads = 0;
};

HostMemory& host_memory() {
  static HostMemory* memory = new HostMemory; // outlives every dataset of the tests
  return *memory;
}

/// A CellRunner whose DeviceRunner keeps the records in emulated device memory (the
/// residency of the CUDA runner) and runs each wave there, last record first, checking that no
/// two records of a wave share a value of a conflict field (user: one_d and rotation; item:
/// rotation).
template <class Runner>
class EmulatedGpu final : public detail::CellRunner, public detail::DeviceRunner {
public:
  EmulatedGpu(Runner& inner, const detail::LoopFrame& frame, Dataset<Rating>& data,
              std::string unavailable, codegen::Kind kind)
      : inner_(inner), frame_(frame), data_(data), unavailable_(std::move(unavailable)),
        users_conflict_(kind != codegen::Kind::independent),
        items_conflict_(kind == codegen::Kind::rotation) {}
  bool run_records(int slot, std::size_t begin, std::size_t end) override {
    return inner_.run_records(slot, begin, end);
  }
  bool run_box(int, const std::int64_t*, const std::int64_t*) override { return false; }
  bool run_list(int slot, const std::size_t* i, std::size_t n) override {
    return inner_.run_list(slot, i, n);
  }
  void cell_finished(int slot) override { inner_.cell_finished(slot); }
  void step_finished() override { inner_.step_finished(); }
  detail::DeviceRunner* device() override { return this; }

  std::string unavailable() override { return unavailable_; }
  std::size_t free_bytes() override { return std::size_t{1} << 30; }
  std::size_t record_bytes_needed(std::size_t n) override {
    return n * (sizeof(Rating) + sizeof(double));
  }
  detail::DeviceRunSummary run(const detail::DeviceExecution& ex) override {
    using detail::DatasetInternals;
    EXPECT_EQ(ex.slot, 0);
    ++launches;
    std::vector<Rating>& host = DatasetInternals::records(data_);
    detail::RecordsRequest request;
    request.stamp = {host.data(), host.size(), DatasetInternals::version(data_), ex.fields};
    request.host = reinterpret_cast<const char*>(host.data());
    request.record_bytes = sizeof(Rating);
    request.other_bytes = host.size() * sizeof(double);
    request.limit = ex.limit;
    detail::ResidentRecords& copy = detail::resident_records(DatasetInternals::device_copy(data_),
                                                             host_memory(), request, ex.schedule);
    const std::vector<std::int64_t> bounds =
        detail::launch_bounds(copy.waves(), !ex.fields.empty());
    run_device_waves(copy, bounds);
    if (ex.writes_records) {
      copy.write_back(reinterpret_cast<char*>(host.data()), sizeof(Rating));
    }
    waves_seen = static_cast<int>(bounds.size()) - 1;
    return {waves_seen, 0, false};
  }
  int launches = 0;
  int waves_seen = 0;

private:
  /// Each launch range of the device copy, in reverse record order, written back to the copy.
  void run_device_waves(detail::ResidentRecords& copy, const std::vector<std::int64_t>& bounds) {
    const detail::DeviceWaves& waves = copy.waves();
    auto* device = static_cast<Rating*>(copy.device());
    std::vector<char> seen(waves.order.size(), 0);
    for (std::size_t w = 0; w + 1 < bounds.size(); ++w) {
      std::set<std::int32_t> users, items;
      std::vector<Rating> wave;
      for (std::int64_t p = bounds[w + 1] - 1; p >= bounds[w]; --p) {
        const Rating& r = device[p];
        EXPECT_TRUE((users.insert(r.user).second || !users_conflict_) &&
                    (items.insert(r.item).second || !items_conflict_))
            << "wave " << w << " has two records of user " << r.user << " or item " << r.item;
        EXPECT_FALSE(seen[static_cast<std::size_t>(waves.order[p])]++);
        wave.push_back(r);
      }
      inner_.replay_records(frame_, reinterpret_cast<char*>(wave.data()), wave.size());
      std::reverse(wave.begin(), wave.end());
      std::copy(wave.begin(), wave.end(), device + bounds[w]);
    }
  }

  Runner& inner_;
  const detail::LoopFrame& frame_;
  Dataset<Rating>& data_;
  std::string unavailable_;
  bool users_conflict_;
  bool items_conflict_;
};

codegen::LoopSpec device_rotation_spec() {
  codegen::LoopSpec s = spec(Kind::rotation, {0, 1},
                             {array("W", Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}),
                              array("H", Role::rotating, 1, true, {{1, 0, 0}, {-1, 0, 0}})});
  s.device = codegen::Device::gpu;
  s.file = "gpu_test.cpp";
  s.line = 42;
  return s;
}

/// run_loop's steps for a Dataset loop, with the emulated GPU in place of the plain runner.
template <class Body>
int run_on_emulated_gpu(const codegen::LoopSpec& s, Dataset<Rating>& ratings,
                        DistArray<float, 2>& W, DistArray<float, 2>& H, double& loss, Body body,
                        const std::string& unavailable, bool count_waves = false) {
  using namespace detail;
  LoopFrame frame;
  add_array(frame, W);
  add_array(frame, H);
  add_reduction(frame, loss);
  using Loop = BodyLoop<Body, std::tuple<DistArray<float, 2>&, DistArray<float, 2>&>,
                        std::tuple<double&>, codegen::SparseCapable<>>;
  const auto keys = codegen::keys(&Rating::user, &Rating::item);
  DatasetAccess<Rating, decltype(keys)> access(ratings, keys);
  DatasetRunner<Rating, Loop, Body> runner(ratings, body, frame);
  EmulatedGpu<DatasetRunner<Rating, Loop, Body>> gpu(runner, frame, ratings, unavailable, s.kind);
  run_erased_loop(s, access, frame, gpu);
  return count_waves ? gpu.waves_seen : gpu.launches;
}

TEST(GpuExecutor, WavesOnTheDeviceEqualTheSerialRunInRecordOrderBitwise) {
  if (Session::instance().ranks() > 1) {
    GTEST_SKIP() << "the GPU executor runs one rank";
  }
  const int users = 41, items = 29, k = 8;
  std::vector<Rating> records = make_ratings(4000, users, items, 5);
  Dataset<Rating> ratings(records);
  DistArray<float, 2> W({users, k}), H({items, k});
  W.fill_normal(0.f, 0.1f, 1);
  H.fill_normal(0.f, 0.1f, 2);
  DistArray<float, 2> W0 = W, H0 = H;
  const auto body = device_mf_body(0.01f, 0.02f);
  for (int epoch = 0; epoch < 3; ++epoch) {
    double loss = 0, loss0 = 0;
    testing::internal::CaptureStderr();
    EXPECT_EQ(run_on_emulated_gpu(device_rotation_spec(), ratings, W, H, loss, body, ""), 1);
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
    for (const Rating& r : records) {
      body(r, W0, H0, loss0);
    }
    EXPECT_TRUE(bitwise_equal(W, W0)) << "epoch " << epoch;
    EXPECT_TRUE(bitwise_equal(H, H0)) << "epoch " << epoch;
    EXPECT_NEAR(loss, loss0, 1e-9 * loss0); // the same terms, summed in the wave order
    EXPECT_GT(loss, 0);
  }
}

/// The waves the executor handed the device, for each plan kind: one_d keeps only the user's
/// order (W by user, H read), independent runs every record in one wave.
TEST(GpuExecutor, OneDWavesFollowThePartitionFieldAndIndependentIsOneWave) {
  if (Session::instance().ranks() > 1) {
    GTEST_SKIP() << "the GPU executor runs one rank";
  }
  const int users = 23, items = 19, k = 4;
  std::vector<Rating> records = make_ratings(2000, users, items, 8);
  Dataset<Rating> ratings(records);
  DistArray<float, 2> W({users, k}), H({items, k});
  W.fill_normal(0.f, 0.1f, 5);
  H.fill_normal(0.f, 0.1f, 6);
  DistArray<float, 2> W0 = W, H0 = H;
  // one_d over user: W written by user, H only read (the item's records may share a wave)
  const auto body = [](const Rating& r, codegen::DeviceArray<DistArray<float, 2>> W,
                       codegen::DeviceArray<DistArray<float, 2>> H, double& loss) {
    auto w = W.row(r.user);
    const float e = r.value - w.dot(H.row(r.item));
    w += 0.01f * e * H.row(r.item);
    loss += e;
  };
  codegen::LoopSpec s = device_rotation_spec();
  s.kind = Kind::one_d;
  s.fields = {0};
  s.arrays[1] = array("H", Role::replicated, -1, false, {{1, 0, 0}, {-1, 0, 0}});
  double loss = 0, loss0 = 0;
  std::int64_t hottest = 0;
  {
    std::vector<std::int64_t> per_user(users);
    for (const Rating& r : records) {
      hottest = std::max(hottest, ++per_user[static_cast<std::size_t>(r.user)]);
    }
  }
  EXPECT_EQ(run_on_emulated_gpu(s, ratings, W, H, loss, body, "", true), hottest)
      << "one_d: as many waves as the hottest user has records (items may repeat in a wave)";
  for (const Rating& r : records) {
    body(r, W0, H0, loss0);
  }
  EXPECT_TRUE(bitwise_equal(W, W0));
  EXPECT_TRUE(bitwise_equal(H, H0));
  s.kind = Kind::independent;
  s.fields = {};
  s.arrays[0] = array("W", Role::replicated, -1, false, {{0, 0, 0}, {-1, 0, 0}});
  const auto reader = [](const Rating& r, codegen::DeviceArray<DistArray<float, 2>> W,
                         codegen::DeviceArray<DistArray<float, 2>> H,
                         double& sum) { sum += W(r.user, 0) * H(r.item, 0); };
  double sum = 0;
  EXPECT_EQ(run_on_emulated_gpu(s, ratings, W, H, sum, reader, "", true), 1);
}

/// Counters of the process's device ledger and emulated memory, to compare before and after.
struct ResidencyCounts {
  std::uint64_t staged, reused, evicted;
  int uploads, downloads;
  static ResidencyCounts now() {
    const detail::DeviceLedger& l = detail::device_ledger();
    return {l.staged, l.reused, l.evicted, host_memory().uploads, host_memory().downloads};
  }
  ResidencyCounts since(const ResidencyCounts& before) const {
    return {staged - before.staged, reused - before.reused, evicted - before.evicted,
            uploads - before.uploads, downloads - before.downloads};
  }
};

/// SGD-MF for `epochs` executions on the emulated GPU and in record order on the host; the
/// arrays must stay bitwise equal.
void run_epochs(Dataset<Rating>& ratings, const std::vector<Rating>& records,
                DistArray<float, 2>& W, DistArray<float, 2>& H, DistArray<float, 2>& W0,
                DistArray<float, 2>& H0, int epochs) {
  const auto body = device_mf_body(0.01f, 0.02f);
  for (int epoch = 0; epoch < epochs; ++epoch) {
    double loss = 0, loss0 = 0;
    EXPECT_EQ(run_on_emulated_gpu(device_rotation_spec(), ratings, W, H, loss, body, ""), 1);
    for (const Rating& r : records) {
      body(r, W0, H0, loss0);
    }
    EXPECT_TRUE(bitwise_equal(W, W0)) << "epoch " << epoch;
    EXPECT_TRUE(bitwise_equal(H, H0)) << "epoch " << epoch;
  }
}

TEST(GpuResidency, RecordsAreStagedOnceAndReusedWhileTheDatasetIsUnchanged) {
  if (Session::instance().ranks() > 1) {
    GTEST_SKIP() << "the GPU executor runs one rank";
  }
  const int users = 31, items = 17, k = 4;
  std::vector<Rating> records = make_ratings(3000, users, items, 11);
  Dataset<Rating> ratings(records);
  DistArray<float, 2> W({users, k}), H({items, k});
  W.fill_normal(0.f, 0.1f, 1);
  H.fill_normal(0.f, 0.1f, 2);
  DistArray<float, 2> W0 = W, H0 = H;
  const ResidencyCounts before = ResidencyCounts::now();
  run_epochs(ratings, records, W, H, W0, H0, 4);
  const ResidencyCounts four = ResidencyCounts::now().since(before);
  EXPECT_EQ(four.staged, 1u);
  EXPECT_EQ(four.reused, 3u);
  EXPECT_EQ(four.uploads, 1) << "the records go to the device once";
  EXPECT_EQ(four.downloads, 0) << "the loop does not write records";
  // reading through a const reference changes nothing: still resident
  const Dataset<Rating>& reader = ratings;
  float sum = 0;
  for (const Rating& r : reader) {
    sum += r.value;
  }
  EXPECT_GT(sum, 0.f);
  run_epochs(ratings, records, W, H, W0, H0, 1);
  EXPECT_EQ(ResidencyCounts::now().since(before).staged, 1u);
}

TEST(GpuResidency, SerialCodeChangingRecordsBetweenExecutionsIsSeenByTheNext) {
  if (Session::instance().ranks() > 1) {
    GTEST_SKIP() << "the GPU executor runs one rank";
  }
  const int users = 19, items = 23, k = 4;
  std::vector<Rating> records = make_ratings(2000, users, items, 12);
  Dataset<Rating> ratings(records);
  DistArray<float, 2> W({users, k}), H({items, k});
  W.fill_normal(0.f, 0.1f, 3);
  H.fill_normal(0.f, 0.1f, 4);
  DistArray<float, 2> W0 = W, H0 = H;
  const ResidencyCounts before = ResidencyCounts::now();
  run_epochs(ratings, records, W, H, W0, H0, 1);
  // a value and a key change through non-const access (a key change moves the record to other
  // waves: the schedule must be built again, not only the records uploaded)
  ratings[7].value = 4.75f;
  records[7].value = 4.75f;
  ratings[8].user = (ratings[8].user + 5) % users;
  records[8].user = (records[8].user + 5) % users;
  run_epochs(ratings, records, W, H, W0, H0, 2);
  // one more record (a new count and version): staged again, and the new record runs
  Rating extra = records[0];
  extra.value = 1.25f;
  ratings.push_back(extra);
  records.push_back(extra);
  run_epochs(ratings, records, W, H, W0, H0, 1);
  const ResidencyCounts after = ResidencyCounts::now().since(before);
  EXPECT_EQ(after.staged, 3u);
  EXPECT_EQ(after.reused, 1u);
}

TEST(GpuResidency, RecordsTheLoopWritesAreCopiedBackAfterEveryExecution) {
  if (Session::instance().ranks() > 1) {
    GTEST_SKIP() << "the GPU executor runs one rank";
  }
  const int users = 13, items = 11, k = 4;
  std::vector<Rating> records = make_ratings(1500, users, items, 13);
  Dataset<Rating> ratings(records);
  DistArray<float, 2> W({users, k}), H({items, k});
  W.fill_normal(0.f, 0.1f, 5);
  H.fill_normal(0.f, 0.1f, 6);
  DistArray<float, 2> W0 = W, H0 = H;
  // LDA-shaped: the record keeps state the next execution reads (its residual)
  const auto body = [](Rating& r, codegen::DeviceArray<DistArray<float, 2>> W,
                       codegen::DeviceArray<DistArray<float, 2>> H, double& loss) {
    auto w = W.row(r.user);
    auto h = H.row(r.item);
    const float e = r.value - w.dot(h);
    loss += e * e;
    w += 0.01f * (e * h - 0.02f * w);
    h += 0.01f * (e * w - 0.02f * h);
    r.value = 0.5f * r.value + 0.5f * e;
  };
  codegen::LoopSpec s = device_rotation_spec();
  s.writes_records = true;
  const ResidencyCounts before = ResidencyCounts::now();
  for (int epoch = 0; epoch < 4; ++epoch) {
    if (epoch == 2) {
      ratings[3].value += 1.f; // serial code changes a record the device holds
      records[3].value += 1.f;
    }
    double loss = 0, loss0 = 0;
    EXPECT_EQ(run_on_emulated_gpu(s, ratings, W, H, loss, body, ""), 1);
    for (Rating& r : records) {
      body(r, W0, H0, loss0);
    }
    EXPECT_TRUE(bitwise_equal(W, W0)) << "epoch " << epoch;
    EXPECT_TRUE(bitwise_equal(H, H0)) << "epoch " << epoch;
    const Dataset<Rating>& seen = ratings;
    bool same = seen.local_size() == records.size();
    for (std::size_t i = 0; same && i < records.size(); ++i) {
      same = std::memcmp(&seen[i], &records[i], sizeof(Rating)) == 0;
    }
    EXPECT_TRUE(same) << "epoch " << epoch << ": serial code reads the loop's writes";
  }
  const ResidencyCounts after = ResidencyCounts::now().since(before);
  EXPECT_EQ(after.staged, 2u) << "staged at the start and after the serial change";
  EXPECT_EQ(after.reused, 2u);
  EXPECT_EQ(after.downloads, 4) << "written records come back after every execution";
}

TEST(GpuResidency, UnderTheLimitTheLeastRecentlyUsedDatasetLeavesTheDevice) {
  if (Session::instance().ranks() > 1) {
    GTEST_SKIP() << "the GPU executor runs one rank";
  }
  const int users = 11, items = 7, k = 4;
  std::vector<Rating> ra = make_ratings(500, users, items, 14),
                      rb = make_ratings(500, users, items, 15);
  Dataset<Rating> a(ra), b(rb);
  DistArray<float, 2> W({users, k}), H({items, k});
  W.fill_normal(0.f, 0.1f, 7);
  H.fill_normal(0.f, 0.1f, 8);
  DistArray<float, 2> W0 = W, H0 = H;
  // one loop needs 10288 bytes (6000 of records); two datasets' records do not fit beside it
  detail::set_gpu_memory_limit(12000);
  const ResidencyCounts before = ResidencyCounts::now();
  const std::size_t live = host_memory().live;
  run_epochs(a, ra, W, H, W0, H0, 1);
  run_epochs(b, rb, W, H, W0, H0, 1);
  EXPECT_EQ(host_memory().live - live, 6000u) << "only b's records are resident";
  run_epochs(a, ra, W, H, W0, H0, 1);
  detail::set_gpu_memory_limit(0);
  run_epochs(b, rb, W, H, W0, H0, 1); // the default limit holds both: a stays
  run_epochs(a, ra, W, H, W0, H0, 1);
  const ResidencyCounts after = ResidencyCounts::now().since(before);
  EXPECT_EQ(after.staged, 4u);
  EXPECT_EQ(after.evicted, 2u);
  EXPECT_EQ(after.reused, 1u);
  EXPECT_EQ(host_memory().live - live, 12000u);
}

/// one_d over the user (W written by user, H read) and independent (reads only) bodies.
auto one_d_body() {
  return [](const Rating& r, codegen::DeviceArray<DistArray<float, 2>> W,
            codegen::DeviceArray<DistArray<float, 2>> H, double& loss) {
    auto w = W.row(r.user);
    const float e = r.value - w.dot(H.row(r.item));
    w += 0.01f * e * H.row(r.item);
    loss += e;
  };
}
codegen::LoopSpec device_one_d_spec() {
  codegen::LoopSpec s = device_rotation_spec();
  s.kind = Kind::one_d;
  s.fields = {0};
  s.arrays[1] = array("H", Role::replicated, -1, false, {{1, 0, 0}, {-1, 0, 0}});
  return s;
}
codegen::LoopSpec device_independent_spec() {
  codegen::LoopSpec s = device_one_d_spec();
  s.kind = Kind::independent;
  s.fields = {};
  s.arrays[0] = array("W", Role::replicated, -1, false, {{0, 0, 0}, {-1, 0, 0}});
  return s;
}

TEST(GpuResidency, PlansOverFewerConflictFieldsReuseTheWavesOfMoreNotTheOtherWayRound) {
  if (Session::instance().ranks() > 1) {
    GTEST_SKIP() << "the GPU executor runs one rank";
  }
  const int users = 29, items = 13, k = 4;
  std::vector<Rating> records = make_ratings(2500, users, items, 17);
  DistArray<float, 2> W({users, k}), H({items, k});
  W.fill_normal(0.f, 0.1f, 9);
  H.fill_normal(0.f, 0.1f, 10);
  DistArray<float, 2> W0 = W, H0 = H;
  const auto counter = [](const Rating& r, codegen::DeviceArray<DistArray<float, 2>>,
                          codegen::DeviceArray<DistArray<float, 2>>,
                          double& n) { n += r.user + 1; };
  double expected_count = 0;
  for (const Rating& r : records) {
    expected_count += r.user + 1;
  }
  const auto one_d = [&](Dataset<Rating>& data) {
    double loss = 0, loss0 = 0;
    EXPECT_EQ(run_on_emulated_gpu(device_one_d_spec(), data, W, H, loss, one_d_body(), ""), 1);
    for (const Rating& r : records) {
      one_d_body()(r, W0, H0, loss0);
    }
    EXPECT_TRUE(bitwise_equal(W, W0));
  };
  const auto independent = [&](Dataset<Rating>& data) {
    double n = 0;
    EXPECT_EQ(run_on_emulated_gpu(device_independent_spec(), data, W, H, n, counter, "", true), 1)
        << "no conflict field: one launch over the records, whatever waves they were staged in";
    EXPECT_EQ(n, expected_count);
  };
  const ResidencyCounts before = ResidencyCounts::now();
  {
    Dataset<Rating> ratings(records);
    run_epochs(ratings, records, W, H, W0, H0, 1); // rotation: staged over user and item
    one_d(ratings);
    independent(ratings);
    run_epochs(ratings, records, W, H, W0, H0, 1);
  }
  ResidencyCounts after = ResidencyCounts::now().since(before);
  EXPECT_EQ(after.staged, 1u);
  EXPECT_EQ(after.reused, 3u);
  {
    Dataset<Rating> ratings(records);
    independent(ratings);                          // staged in one wave
    one_d(ratings);                                // waves over the user needed: staged again
    run_epochs(ratings, records, W, H, W0, H0, 1); // and over user and item: again
    one_d(ratings);
  }
  after = ResidencyCounts::now().since(before);
  EXPECT_EQ(after.staged, 4u);
  EXPECT_EQ(after.reused, 4u);
}

TEST(GpuResidency, TheDeviceCopyBelongsToItsDataset) {
  if (Session::instance().ranks() > 1) {
    GTEST_SKIP() << "the GPU executor runs one rank";
  }
  const int users = 9, items = 5, k = 4;
  std::vector<Rating> records = make_ratings(400, users, items, 16);
  DistArray<float, 2> W({users, k}), H({items, k});
  DistArray<float, 2> W0 = W, H0 = H;
  const std::size_t live = host_memory().live;
  const ResidencyCounts before = ResidencyCounts::now();
  {
    Dataset<Rating> ratings(records);
    run_epochs(ratings, records, W, H, W0, H0, 1);
    Dataset<Rating> copy = ratings; // its own records: no device copy yet
    run_epochs(copy, records, W, H, W0, H0, 1);
    Dataset<Rating> moved = std::move(ratings); // the same storage: the copy goes along
    run_epochs(moved, records, W, H, W0, H0, 1);
    EXPECT_EQ(host_memory().live - live, 2 * records.size() * sizeof(Rating));
  }
  EXPECT_EQ(host_memory().live, live) << "datasets free their device copies";
  const ResidencyCounts after = ResidencyCounts::now().since(before);
  EXPECT_EQ(after.staged, 2u);
  EXPECT_EQ(after.reused, 1u);
}

TEST(GpuExecutor, WithoutADeviceTheLoopRunsOnTheCpuAfterOneLine) {
  const int users = 17, items = 13, k = 4;
  std::vector<Rating> records = make_ratings(600, users, items, 9);
  Dataset<Rating> ratings = share_of(records);
  DistArray<float, 2> W({users, k}), H({items, k});
  W.fill_normal(0.f, 0.1f, 3);
  H.fill_normal(0.f, 0.1f, 4);
  DistArray<float, 2> W0 = W, H0 = H;
  const auto body = device_mf_body(0.01f, 0.02f);
  CaptureOrders capture;
  std::string said;
  for (int epoch = 0; epoch < 2; ++epoch) {
    double loss = 0, loss0 = 0;
    testing::internal::CaptureStderr();
    EXPECT_EQ(
        run_on_emulated_gpu(device_rotation_spec(), ratings, W, H, loss, body, "no CUDA device"),
        0);
    said += testing::internal::GetCapturedStderr();
    replay(records, last_order(), [&](const Rating& r) { body(r, W0, H0, loss0); });
    EXPECT_TRUE(bitwise_equal(W, W0)) << "epoch " << epoch;
    EXPECT_TRUE(bitwise_equal(H, H0)) << "epoch " << epoch;
  }
  if (Session::instance().ranks() == 1) {
    EXPECT_EQ(said, "rotor: no CUDA device; device(gpu) loop at gpu_test.cpp:42 runs on the CPU\n");
  } else if (Session::instance().rank() == 0) {
    EXPECT_NE(said.find("ranks and the loop writes array W (the GPU executor syncs no arrays "
                        "between ranks yet); device(gpu) loop at gpu_test.cpp:42 runs on the CPU"),
              std::string::npos)
        << said;
  }
}

/// A loop that writes nothing but a reduction, over `data` on every rank's emulated GPU (or not,
/// where `unavailable` says why); returns the launches on this rank.
int count_on_emulated_gpus(Dataset<Rating>& data, double& n, const std::string& unavailable) {
  DistArray<float, 2> W({1, 1}), H({1, 1});
  const auto counter = [](const Rating& r, codegen::DeviceArray<DistArray<float, 2>>,
                          codegen::DeviceArray<DistArray<float, 2>>,
                          double& sum) { sum += r.user + 1; };
  codegen::LoopSpec s = device_rotation_spec();
  s.kind = Kind::independent;
  s.fields = {};
  s.arrays[0] = array("W", Role::replicated, -1, false, {{0, 0, 0}, {-1, 0, 0}});
  s.arrays[1] = array("H", Role::replicated, -1, false, {{1, 0, 0}, {-1, 0, 0}});
  return run_on_emulated_gpu(s, data, W, H, n, counter, unavailable);
}

TEST(GpuExecutor, AcrossRanksAReadOnlyLoopRunsOnEveryRanksGpuAndCombinesItsReduction) {
  const std::vector<Rating> records = make_ratings(3000, 37, 21, 18);
  double expected = 0;
  for (const Rating& r : records) {
    expected += r.user + 1;
  }
  const int ranks = Session::instance().ranks();
  Dataset<Rating> share = share_of(records); // distributed: each rank holds its share
  double n = 0;
  testing::internal::CaptureStderr();
  EXPECT_EQ(count_on_emulated_gpus(share, n, ""), 1) << "every rank runs its share on its GPU";
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(n, expected) << "the ranks' partials combined";
  if (ranks == 1) {
    return;
  }
  // the nearest shapes that stay on the CPU: a dataset every rank holds whole (each GPU would
  // run every record), and a rank without a device (every rank goes to the CPU together)
  Dataset<Rating> whole(records);
  n = 0;
  testing::internal::CaptureStderr();
  EXPECT_EQ(count_on_emulated_gpus(whole, n, ""), 0);
  std::string said = testing::internal::GetCapturedStderr();
  EXPECT_EQ(n, expected);
  if (Session::instance().rank() == 0) {
    EXPECT_NE(said.find("ranks over a dataset every rank holds whole"), std::string::npos) << said;
  }
  n = 0;
  testing::internal::CaptureStderr();
  const std::string mine = Session::instance().rank() == 1 ? "no CUDA device" : "";
  EXPECT_EQ(count_on_emulated_gpus(share, n, mine), 0);
  said = testing::internal::GetCapturedStderr();
  EXPECT_EQ(n, expected);
  if (Session::instance().rank() == 0) {
    EXPECT_NE(said.find("another rank's GPU cannot run it"), std::string::npos) << said;
  }
}

TEST(GpuExecutor, OverTheGpuMemoryLimitTheLoopRunsOnTheCpu) {
  if (Session::instance().ranks() > 1) {
    GTEST_SKIP() << "the GPU executor runs one rank";
  }
  std::vector<Rating> records = make_ratings(500, 11, 7, 3);
  Dataset<Rating> ratings(records);
  DistArray<float, 2> W({11, 4}), H({7, 4});
  double loss = 0;
  detail::set_gpu_memory_limit(1024); // the records, partials and arrays need 10288 bytes
  testing::internal::CaptureStderr();
  const int launches = run_on_emulated_gpu(device_rotation_spec(), ratings, W, H, loss,
                                           device_mf_body(0.01f, 0.02f), "");
  const std::string said = testing::internal::GetCapturedStderr();
  detail::set_gpu_memory_limit(0);
  EXPECT_EQ(launches, 0);
  EXPECT_NE(said.find("over --rotor-gpu-memory=1024"), std::string::npos) << said;
  EXPECT_NE(said.find("device(gpu) loop at gpu_test.cpp:42 runs on the CPU"), std::string::npos);
}

TEST(GpuSettings, ByteCountsAndTheirErrors) {
  EXPECT_EQ(detail::parse_byte_count("--rotor-gpu-memory", "4096"), 4096u);
  EXPECT_EQ(detail::parse_byte_count("--rotor-gpu-memory", "8G"), std::uint64_t{8} << 30);
  EXPECT_EQ(detail::parse_byte_count("--rotor-gpu-memory", "3m"), std::uint64_t{3} << 20);
  for (const char* bad : {"", "0", "-1", "12X", "1.5G", "G", "99999999999999999999"}) {
    try {
      detail::parse_byte_count("--rotor-gpu-memory", bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const SettingsError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("--rotor-gpu-memory='") + bad + "'"),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_THROW(detail::parse_gpu_flag("--rotor-gpu-memory", "", false), SettingsError);
  EXPECT_FALSE(detail::parse_gpu_flag("--rotor-blocks", "4", true));
}

} // namespace
} // namespace rotor::test
