// The GPU executor on a CPU: a device loop's body (shaped like rotor-cc's device lambda: ArrayRef
// parameters, a reduction partial) run through the engine with an emulated DeviceRunner that
// applies each wave the executor hands it in reverse record order, as a GPU's threads may. The
// executor's choice (device present or not, --rotor-gpu-memory), its wave schedule (no two
// records of a wave share a conflict key) and the result (bitwise the serial run in record
// order, whose per-key order the waves keep) are checked; tests/cuda runs the real launch.
#include "GpuSettings.h"
#include "LoopTestUtil.h"
#include "rotor/runtime/detail/LoopFrame.h"

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

/// A CellRunner whose DeviceRunner runs each wave on the host, last record first, and checks
/// that no two records of a wave share a value of a conflict field (user: one_d and rotation;
/// item: rotation).
template <class Runner>
class EmulatedGpu final : public detail::CellRunner, public detail::DeviceRunner {
public:
  EmulatedGpu(Runner& inner, const detail::LoopFrame& frame, std::vector<Rating>& records,
              std::string unavailable, codegen::Kind kind)
      : inner_(inner), frame_(frame), records_(records), unavailable_(std::move(unavailable)),
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
  void run_waves(int slot, const std::int64_t* order, std::size_t count,
                 const std::int64_t* wave_start, int waves, bool) override {
    EXPECT_EQ(slot, 0);
    ++launches;
    std::vector<char> seen(count, 0);
    for (int w = 0; w < waves; ++w) {
      std::set<std::int32_t> users, items;
      std::vector<Rating> wave;
      for (std::int64_t p = wave_start[w + 1] - 1; p >= wave_start[w]; --p) {
        const Rating& r = records_[static_cast<std::size_t>(order[p])];
        EXPECT_TRUE((users.insert(r.user).second || !users_conflict_) &&
                    (items.insert(r.item).second || !items_conflict_))
            << "wave " << w << " has two records of user " << r.user << " or item " << r.item;
        EXPECT_FALSE(seen[static_cast<std::size_t>(order[p])]++);
        wave.push_back(r);
      }
      inner_.replay_records(frame_, reinterpret_cast<char*>(wave.data()), wave.size());
    }
    waves_seen = waves;
  }
  int launches = 0;
  int waves_seen = 0;

private:
  Runner& inner_;
  const detail::LoopFrame& frame_;
  std::vector<Rating>& records_;
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
  EmulatedGpu<DatasetRunner<Rating, Loop, Body>> gpu(
      runner, frame, DatasetInternals::records(ratings), unavailable, s.kind);
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
    EXPECT_NE(said.find("ranks (the GPU executor runs a single rank); device(gpu) loop at "
                        "gpu_test.cpp:42 runs on the CPU"),
              std::string::npos)
        << said;
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
