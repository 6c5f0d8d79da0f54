// The lane form of sgd_update (k/4 lanes per rating, float4 chunks, butterfly dot: the fast wave
// kernel's arithmetic, gpu/include/rotor/gpu/SgdUpdate.h) on the host: waves run in any in-wave
// order are bitwise equal to the serial replay of the wave order with the same lane arithmetic,
// and close to sgd_update; tail_start splits waves for the persistent kernel.
#include "rotor/gpu/BlockedRatings.h"
#include "rotor/gpu/Kernels.h" // wave_launch is inline host code: no CUDA needed
#include "rotor/gpu/SgdUpdate.h"
#include "rotor/gpu/SyntheticRatings.h"
#include "rotor/gpu/WaveSchedule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>
#include <vector>

namespace {

using namespace rotor::gpu;

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

TEST(LaneUpdate, LanesPerRating) {
  EXPECT_EQ(sgd_lanes_for(4), 1);
  EXPECT_EQ(sgd_lanes_for(20), 8);
  EXPECT_EQ(sgd_lanes_for(32), 8);
  EXPECT_EQ(sgd_lanes_for(64), 16);
  EXPECT_EQ(sgd_lanes_for(128), 32);
  EXPECT_EQ(sgd_lanes_for(256), 32);
  EXPECT_EQ(sgd_lanes_for(6), 0);
  EXPECT_EQ(sgd_lanes_for(0), 0);
}

TEST(LaneUpdate, OneLaneIsSgdUpdateBitwiseAndManyLanesAreClose) {
  bool some_bits_differ = false;
  for (int k : {4, 20, 32, 64, 128, 256}) {
    for (unsigned seed = 1; seed <= 20; ++seed) {
      auto w = normal(static_cast<std::size_t>(k), seed),
           h = normal(static_cast<std::size_t>(k), seed + 100);
      auto w2 = w, h2 = h;
      const float e2 = sgd_update(w.data(), h.data(), k, 4.5f, k_mean, k_lr, k_reg);
      const float l2 = sgd_update_lanes(w2.data(), h2.data(), k, 4.5f, k_mean, k_lr, k_reg);
      EXPECT_NEAR(l2, e2, 1e-5f * e2) << "k " << k;
      for (int i = 0; i < k; ++i) {
        EXPECT_NEAR(w2[i], w[i], 1e-6f) << "k " << k;
        EXPECT_NEAR(h2[i], h[i], 1e-6f) << "k " << k;
      }
      const bool same = std::memcmp(w.data(), w2.data(), w.size() * 4) == 0 &&
                        std::memcmp(h.data(), h2.data(), h.size() * 4) == 0 && e2 == l2;
      if (k == 4) {
        EXPECT_TRUE(same) << "one lane sums left to right like sgd_update";
      } else {
        some_bits_differ = some_bits_differ || !same;
      }
    }
  }
  // the lane order is a different summation: the device test against it is not vacuous
  EXPECT_TRUE(some_bits_differ);
}

TEST(LaneUpdate, WavesWithLaneArithmeticEqualTheirSerialReplayBitwise) {
  for (int k : {32, 128}) {
    const auto d = make_synthetic_ratings(400, 250, 15000, 1.1, static_cast<std::uint64_t>(k));
    const auto r =
        block_ratings(d.user.data(), d.item.data(), d.value.data(), d.size(), d.users, d.items, 3);
    auto W = normal(static_cast<std::size_t>(d.users) * k, 1);
    auto H = normal(static_cast<std::size_t>(d.items) * k, 2);
    auto Wr = W, Hr = H, Ws = W, Hs = H;
    std::mt19937 rng(5);
    auto row = [k](std::vector<float>& m, std::int32_t key) {
      return &m[static_cast<std::size_t>(key) * static_cast<std::size_t>(k)];
    };
    for (const BlockId& b : single_gpu_rotation_order(3, 2)) {
      const int x = b.user_block * 3 + b.item_block;
      const auto start = r.block_start[static_cast<std::size_t>(x)];
      const auto& ws = r.wave_start[static_cast<std::size_t>(x)];
      for (std::size_t w = 0; w + 1 < ws.size(); ++w) { // a GPU: any order inside a wave
        std::vector<std::int64_t> wave;
        for (auto p = start + ws[w]; p < start + ws[w + 1]; ++p) {
          wave.push_back(p);
        }
        std::shuffle(wave.begin(), wave.end(), rng);
        for (auto p : wave) {
          const auto q = static_cast<std::size_t>(p);
          sgd_update_lanes(row(W, r.user[q]), row(H, r.item[q]), k, r.value[q], k_mean, k_lr,
                           k_reg);
        }
      }
      for (auto p = start; p < r.block_start[static_cast<std::size_t>(x) + 1]; ++p) {
        const auto q = static_cast<std::size_t>(p); // the serial replay of the same order
        sgd_update_lanes(row(Wr, r.user[q]), row(Hr, r.item[q]), k, r.value[q], k_mean, k_lr,
                         k_reg);
        sgd_update(row(Ws, r.user[q]), row(Hs, r.item[q]), k, r.value[q], k_mean, k_lr, k_reg);
      }
    }
    EXPECT_EQ(std::memcmp(W.data(), Wr.data(), W.size() * 4), 0) << "k " << k;
    EXPECT_EQ(std::memcmp(H.data(), Hr.data(), H.size() * 4), 0) << "k " << k;
    double worst = 0;
    for (std::size_t i = 0; i < W.size(); ++i) {
      worst = std::max(worst, static_cast<double>(std::fabs(W[i] - Ws[i])));
    }
    EXPECT_LT(worst, 1e-4) << "k " << k << ": lane form drifts from sgd_update";
  }
}

TEST(LaneUpdate, TailStartIsTheFirstOfTheLastSmallWaves) {
  EXPECT_EQ(tail_start({0, 100, 150, 160, 165, 166}, 10), 2);
  EXPECT_EQ(tail_start({0, 100, 150, 160, 165, 166}, 50), 1);
  EXPECT_EQ(tail_start({0, 100, 150, 160, 165, 166}, 100), 0);
  EXPECT_EQ(tail_start({0, 5, 100}, 10), 2); // a large last wave: no tail
  EXPECT_EQ(tail_start({0}, 10), 0);
  EXPECT_EQ(tail_start({}, 10), 0);
}

TEST(LaneUpdate, KeySequenceCountsEarlierPositionsOfTheKey) {
  EXPECT_EQ(key_sequence({2, 0, 2, 2, 1, 0}, 3), (std::vector<std::int32_t>{0, 0, 1, 2, 0, 1}));
  EXPECT_THROW(key_sequence({0, 3}, 3), std::invalid_argument);
}

TEST(LaneUpdate, WaveLaunchSizesTheGridForMostHeadWaves) {
  // k = 32: 8 lanes, 256 / 8 = 32 records per thread block pass; waves of <= 32 are the tail
  const std::vector<std::int64_t> ws = {0, 100, 150, 160, 165, 166};
  const WaveLaunch l = wave_launch(ws, 32);
  EXPECT_EQ(l.waves, 5);
  EXPECT_EQ(l.tail_start, 2);
  EXPECT_EQ(l.grid_records, 100);
  std::vector<std::int64_t> many = {0};
  for (int w = 0; w < 100; ++w) { // head waves of 1000 (one) and 101 .. 199
    many.push_back(many.back() + (w == 0 ? 1000 : 100 + w));
  }
  const WaveLaunch m = wave_launch(many, 128); // 32 lanes: tail waves <= 8 records
  EXPECT_EQ(m.tail_start, 100);
  EXPECT_EQ(m.grid_records, 191); // sorted sizes[90], not the 1000
  EXPECT_EQ(wave_launch({0}, 32).grid_records, 0);
}

} // namespace
