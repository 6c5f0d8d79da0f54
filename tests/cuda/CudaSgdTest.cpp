// The CUDA kernels (gpu/src/Kernels.cu) against the host: the wave kernel is bitwise equal to
// the serial replay of the wave order on the host; the lane kernel (persistent, k/4 lanes per
// rating) bitwise equal to the host's lane replay, resident and streamed under a memory limit;
// Hogwild learns. Skips without a device.
#include "rotor/gpu/BlockedRatings.h"
#include "rotor/gpu/Kernels.h"
#include "rotor/gpu/SgdUpdate.h"
#include "rotor/gpu/StreamedRotation.h"
#include "rotor/gpu/SyntheticRatings.h"
#include "rotor/gpu/WaveSchedule.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace rotor::gpu;

void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
  }
}

template <class T> struct DeviceVector {
  T* ptr = nullptr;
  std::size_t n = 0;
  explicit DeviceVector(const std::vector<T>& host) : n(host.size()) {
    cuda_check(cudaMalloc(reinterpret_cast<void**>(&ptr), std::max<std::size_t>(n, 1) * sizeof(T)),
               "cudaMalloc");
    if (n != 0) {
      cuda_check(cudaMemcpy(ptr, host.data(), n * sizeof(T), cudaMemcpyHostToDevice), "upload");
    }
  }
  DeviceVector(const DeviceVector&) = delete;
  DeviceVector& operator=(const DeviceVector&) = delete;
  ~DeviceVector() { cudaFree(ptr); }
  std::vector<T> download() const {
    std::vector<T> host(n);
    if (n != 0) {
      cuda_check(cudaMemcpy(host.data(), ptr, n * sizeof(T), cudaMemcpyDeviceToHost), "download");
    }
    return host;
  }
};

class CudaSgd : public ::testing::Test {
protected:
  void SetUp() override {
    std::string why;
    if (device_count(&why) == 0) {
      GTEST_SKIP() << "no GPU: " << why;
    }
  }
};

constexpr int k_k = 32;
constexpr float k_mean = 3.f, k_lr = 0.02f, k_reg = 0.05f;

std::vector<float> normal(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.f, 0.1f);
  std::vector<float> v(n);
  for (float& x : v) {
    x = d(rng);
  }
  return v;
}

TEST_F(CudaSgd, WaveKernelEqualsHostReplayBitwise) {
  const auto d = make_synthetic_ratings(2000, 1500, 100000, 1.0, 5);
  const Waves waves = build_waves(d.user.data(), d.item.data(), d.size(), d.users, d.items);
  auto W = normal(static_cast<std::size_t>(d.users) * k_k, 1);
  auto H = normal(static_cast<std::size_t>(d.items) * k_k, 2);
  DeviceVector<std::int32_t> du(d.user), di(d.item);
  DeviceVector<float> dv(d.value), dW(W), dH(H), derr(std::vector<float>(d.size(), -1.f));
  DeviceVector<std::int64_t> dorder(waves.order);
  SgdDeviceProblem p;
  p.user = du.ptr;
  p.item = di.ptr;
  p.value = dv.ptr;
  p.records = static_cast<std::int64_t>(d.size());
  p.W = dW.ptr;
  p.H = dH.ptr;
  p.k = k_k;
  p.mean = k_mean;
  p.lr = k_lr;
  p.reg = k_reg;
  std::vector<float> err(d.size());
  for (int epoch = 0; epoch < 2; ++epoch) {
    sgd_waves(p, dorder.ptr, waves.wave_start, derr.ptr);
    for (auto r : waves.order) { // host: the serial replay of the same order
      err[static_cast<std::size_t>(r)] = sgd_update(&W[static_cast<std::size_t>(d.user[r]) * k_k],
                                                    &H[static_cast<std::size_t>(d.item[r]) * k_k],
                                                    k_k, d.value[r], k_mean, k_lr, k_reg);
    }
  }
  synchronize();
  const auto gW = dW.download(), gH = dH.download(), gerr = derr.download();
  EXPECT_EQ(std::memcmp(gW.data(), W.data(), W.size() * sizeof(float)), 0);
  EXPECT_EQ(std::memcmp(gH.data(), H.data(), H.size() * sizeof(float)), 0);
  EXPECT_EQ(std::memcmp(gerr.data(), err.data(), err.size() * sizeof(float)), 0);
}

TEST_F(CudaSgd, ErrorKernelEqualsHost) {
  const auto d = make_synthetic_ratings(500, 400, 20000, 0.5, 9);
  const auto W = normal(static_cast<std::size_t>(d.users) * k_k, 3);
  const auto H = normal(static_cast<std::size_t>(d.items) * k_k, 4);
  DeviceVector<std::int32_t> du(d.user), di(d.item);
  DeviceVector<float> dv(d.value), dW(W), dH(H), derr(std::vector<float>(d.size(), -1.f));
  SgdDeviceProblem p{du.ptr, di.ptr, dv.ptr, static_cast<std::int64_t>(d.size()),
                     dW.ptr, dH.ptr, k_k,    k_mean,
                     k_lr,   k_reg};
  sgd_errors(p, derr.ptr);
  synchronize();
  const auto gerr = derr.download();
  for (std::size_t r = 0; r < d.size(); ++r) {
    ASSERT_EQ(gerr[r],
              sgd_error2(&W[static_cast<std::size_t>(d.user[r]) * k_k],
                         &H[static_cast<std::size_t>(d.item[r]) * k_k], k_k, d.value[r], k_mean))
        << "record " << r;
  }
}

TEST_F(CudaSgd, HogwildLearns) {
  const auto d = make_synthetic_ratings(3000, 2000, 200000, 0.8, 13);
  const auto W = normal(static_cast<std::size_t>(d.users) * k_k, 5);
  const auto H = normal(static_cast<std::size_t>(d.items) * k_k, 6);
  DeviceVector<std::int32_t> du(d.user), di(d.item);
  DeviceVector<float> dv(d.value), dW(W), dH(H), derr(std::vector<float>(d.size(), 0.f));
  SgdDeviceProblem p{du.ptr, di.ptr, dv.ptr, static_cast<std::int64_t>(d.size()),
                     dW.ptr, dH.ptr, k_k,    k_mean,
                     k_lr,   k_reg};
  auto rmse = [&] {
    sgd_errors(p, derr.ptr);
    synchronize();
    double s = 0;
    for (float e : derr.download()) {
      s += e;
    }
    return std::sqrt(s / static_cast<double>(d.size()));
  };
  const double before = rmse();
  for (int epoch = 0; epoch < 5; ++epoch) {
    sgd_hogwild(p, nullptr);
  }
  const double after = rmse();
  EXPECT_TRUE(std::isfinite(after));
  EXPECT_LT(after, before * 0.9) << "before " << before << " after " << after;
}

/// The host replay of the lane kernel: sgd_update_lanes over the blocks of `order` in position
/// order (each block's records are stored in wave order).
void host_lane_replay(const BlockedRatings& r, const std::vector<BlockId>& order, int k,
                      std::vector<float>& W, std::vector<float>& H, std::vector<float>* err2) {
  for (const BlockId& b : order) {
    const int x = b.user_block * r.blocks + b.item_block;
    for (auto p = r.block_start[static_cast<std::size_t>(x)];
         p < r.block_start[static_cast<std::size_t>(x) + 1]; ++p) {
      const auto q = static_cast<std::size_t>(p);
      const float e2 = sgd_update_lanes(&W[static_cast<std::size_t>(r.user[q]) * k],
                                        &H[static_cast<std::size_t>(r.item[q]) * k], k, r.value[q],
                                        k_mean, k_lr, k_reg);
      if (err2 != nullptr) {
        (*err2)[q] = e2;
      }
    }
  }
}

TEST_F(CudaSgd, PersistentLaneKernelEqualsHostLaneReplayBitwise) {
  for (int k : {20, 32, 128}) {
    const auto d = make_synthetic_ratings(3000, 2000, 150000, 1.0, static_cast<unsigned>(k));
    const auto r =
        block_ratings(d.user.data(), d.item.data(), d.value.data(), d.size(), d.users, d.items, 3);
    int heads = 0, tails = 0; // both paths of the kernel must run
    for (const auto& ws : r.wave_start) {
      const WaveLaunch l = wave_launch(ws, k);
      heads += l.tail_start > 0;
      tails += l.tail_start < l.waves;
    }
    EXPECT_GT(heads, 0);
    EXPECT_GT(tails, 0);
    auto W = normal(static_cast<std::size_t>(d.users) * k, 1);
    auto H = normal(static_cast<std::size_t>(d.items) * k, 2);
    DeviceVector<float> dW(W), dH(H), derr(std::vector<float>(d.size(), -1.f));
    const ResidentRotation rotation(r, k);
    const auto order = single_gpu_rotation_order(3, 2);
    rotation.run(order, dW.ptr, dH.ptr, k_mean, k_lr, k_reg, derr.ptr);
    synchronize();
    std::vector<float> err(d.size(), -1.f);
    host_lane_replay(r, order, k, W, H, &err);
    const auto gW = dW.download(), gH = dH.download(), gerr = derr.download();
    EXPECT_EQ(std::memcmp(gW.data(), W.data(), W.size() * sizeof(float)), 0) << "k " << k;
    EXPECT_EQ(std::memcmp(gH.data(), H.data(), H.size() * sizeof(float)), 0) << "k " << k;
    EXPECT_EQ(std::memcmp(gerr.data(), err.data(), err.size() * sizeof(float)), 0) << "k " << k;
  }
}

TEST_F(CudaSgd, LaneKernelWithoutCooperativeLaunchEqualsHostLaneReplayBitwise) {
  const int k = 32;
  const auto d = make_synthetic_ratings(2000, 1500, 60000, 1.0, 8);
  const auto r =
      block_ratings(d.user.data(), d.item.data(), d.value.data(), d.size(), d.users, d.items, 1);
  auto W = normal(static_cast<std::size_t>(d.users) * k, 7);
  auto H = normal(static_cast<std::size_t>(d.items) * k, 8);
  DeviceVector<std::int32_t> du(r.user), di(r.item);
  DeviceVector<float> dv(r.value), dW(W), dH(H), derr(std::vector<float>(d.size(), -1.f));
  DeviceVector<std::int64_t> dwaves(r.wave_start[0]);
  SgdBlock b;
  b.user = du.ptr;
  b.item = di.ptr;
  b.value = dv.ptr;
  b.records = static_cast<std::int64_t>(d.size());
  b.wave_start = dwaves.ptr;
  b.launch = wave_launch(r.wave_start[0], k);
  b.launch.cooperative = false;
  ASSERT_GT(b.launch.tail_start, 0);
  ASSERT_LT(b.launch.tail_start, b.launch.waves);
  b.W = dW.ptr;
  b.H = dH.ptr;
  b.k = k;
  b.mean = k_mean;
  b.lr = k_lr;
  b.reg = k_reg;
  b.err2 = derr.ptr;
  sgd_block_waves(b);
  synchronize();
  std::vector<float> err(d.size(), -1.f);
  host_lane_replay(r, {BlockId{0, 0}}, k, W, H, &err);
  const auto gW = dW.download(), gH = dH.download(), gerr = derr.download();
  EXPECT_EQ(std::memcmp(gW.data(), W.data(), W.size() * sizeof(float)), 0);
  EXPECT_EQ(std::memcmp(gH.data(), H.data(), H.size() * sizeof(float)), 0);
  EXPECT_EQ(std::memcmp(gerr.data(), err.data(), err.size() * sizeof(float)), 0);
}

TEST_F(CudaSgd, StreamedRotationEqualsHostLaneReplayBitwise) {
  const int k = 32, blocks = 4;
  const auto d = make_synthetic_ratings(4000, 2500, 120000, 0.8, 21);
  const auto r = block_ratings(d.user.data(), d.item.data(), d.value.data(), d.size(), d.users,
                               d.items, blocks);
  const auto order = single_gpu_rotation_order(blocks, 3);
  const BlockBytes bytes = block_bytes(r, k);
  std::uint64_t need = 0;
  for (const auto* v : {&bytes.records, &bytes.user_rows, &bytes.item_rows}) {
    for (auto b : *v) {
      need += b;
    }
  }
  const auto W0 = normal(static_cast<std::size_t>(d.users) * k, 3);
  const auto H0 = normal(static_cast<std::size_t>(d.items) * k, 4);
  auto Wh = W0, Hh = H0;
  host_lane_replay(r, order, k, Wh, Hh, nullptr);
  for (std::uint64_t limit : {need * 2, need / 2, need / 5}) {
    auto W = W0, H = H0;
    const StreamedRun run = run_streamed_rotation(r, W, H, k, k_mean, k_lr, k_reg, order, limit);
    EXPECT_LE(run.plan.device_bytes, limit);
    EXPECT_EQ(std::memcmp(W.data(), Wh.data(), W.size() * sizeof(float)), 0) << "limit " << limit;
    EXPECT_EQ(std::memcmp(H.data(), Hh.data(), H.size() * sizeof(float)), 0) << "limit " << limit;
  }
}

TEST_F(CudaSgd, DataflowKernelEqualsHostLaneReplayBitwise) {
  for (int k : {32, 128}) {
    const auto d = make_synthetic_ratings(3000, 2000, 150000, 1.0, static_cast<unsigned>(k) + 1);
    const auto r =
        block_ratings(d.user.data(), d.item.data(), d.value.data(), d.size(), d.users, d.items, 1);
    auto W = normal(static_cast<std::size_t>(d.users) * k, 9);
    auto H = normal(static_cast<std::size_t>(d.items) * k, 10);
    DeviceVector<std::int32_t> du(r.user), di(r.item), dus(key_sequence(r.user, d.users)),
        dis(key_sequence(r.item, d.items)),
        udone(std::vector<std::int32_t>(static_cast<std::size_t>(d.users))),
        idone(std::vector<std::int32_t>(static_cast<std::size_t>(d.items))),
        stalled(std::vector<std::int32_t>(1));
    DeviceVector<float> dv(r.value), dW(W), dH(H), derr(std::vector<float>(d.size(), -1.f));
    SgdDataflow f;
    f.user = du.ptr;
    f.item = di.ptr;
    f.value = dv.ptr;
    f.user_seq = dus.ptr;
    f.item_seq = dis.ptr;
    f.records = static_cast<std::int64_t>(d.size());
    f.user_done = udone.ptr;
    f.item_done = idone.ptr;
    f.users = d.users;
    f.items = d.items;
    f.stalled = stalled.ptr;
    f.W = dW.ptr;
    f.H = dH.ptr;
    f.k = k;
    f.mean = k_mean;
    f.lr = k_lr;
    f.reg = k_reg;
    f.err2 = derr.ptr;
    std::vector<float> err(d.size(), -1.f);
    for (int epoch = 0; epoch < 2; ++epoch) {
      sgd_dataflow(f);
      host_lane_replay(r, {BlockId{0, 0}}, k, W, H, &err);
    }
    const auto gW = dW.download(), gH = dH.download(), gerr = derr.download();
    EXPECT_EQ(std::memcmp(gW.data(), W.data(), W.size() * sizeof(float)), 0) << "k " << k;
    EXPECT_EQ(std::memcmp(gH.data(), H.data(), H.size() * sizeof(float)), 0) << "k " << k;
    EXPECT_EQ(std::memcmp(gerr.data(), err.data(), err.size() * sizeof(float)), 0) << "k " << k;
  }
}

TEST_F(CudaSgd, HogwildLanesLearns) {
  const int k = 32;
  const auto d = make_synthetic_ratings(3000, 2000, 200000, 0.8, 13);
  DeviceVector<std::int32_t> du(d.user), di(d.item);
  DeviceVector<float> dv(d.value), dW(normal(static_cast<std::size_t>(d.users) * k, 5)),
      dH(normal(static_cast<std::size_t>(d.items) * k, 6)), derr(std::vector<float>(d.size()));
  SgdDeviceProblem p{du.ptr, di.ptr, dv.ptr, static_cast<std::int64_t>(d.size()), dW.ptr, dH.ptr, k,
                     k_mean, k_lr,   k_reg};
  auto rmse = [&] {
    sgd_errors(p, derr.ptr);
    synchronize();
    double s = 0;
    for (float e : derr.download()) {
      s += e;
    }
    return std::sqrt(s / static_cast<double>(d.size()));
  };
  const double before = rmse();
  for (int epoch = 0; epoch < 5; ++epoch) {
    sgd_hogwild_lanes(p, nullptr);
  }
  const double after = rmse();
  EXPECT_TRUE(std::isfinite(after));
  EXPECT_LT(after, before * 0.9) << "before " << before << " after " << after;
}

} // namespace
