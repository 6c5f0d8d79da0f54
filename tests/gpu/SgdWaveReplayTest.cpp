// sgd_update (gpu/include/rotor/gpu/SgdUpdate.h) run wave by wave, as a GPU would, against the
// serial replay of the wave order and the serial run in record order: bitwise.
#include "rotor/gpu/SgdUpdate.h"
#include "rotor/gpu/SyntheticRatings.h"
#include "rotor/gpu/WaveSchedule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

namespace {

using namespace rotor::gpu;

constexpr int k_k = 16;
constexpr float k_mean = 3.0f, k_lr = 0.02f, k_reg = 0.05f;

struct Model {
  std::vector<float> W, H;
  std::vector<float> err2; // per record
};

Model initial(const SyntheticRatings& d) {
  Model m;
  std::mt19937 rng(42);
  std::normal_distribution<float> n(0.f, 0.1f);
  m.W.resize(static_cast<std::size_t>(d.users) * k_k);
  m.H.resize(static_cast<std::size_t>(d.items) * k_k);
  for (float& x : m.W) {
    x = n(rng);
  }
  for (float& x : m.H) {
    x = n(rng);
  }
  m.err2.assign(d.size(), -1.f);
  return m;
}

void apply(Model& m, const SyntheticRatings& d, std::int64_t r) {
  m.err2[static_cast<std::size_t>(r)] = sgd_update(&m.W[static_cast<std::size_t>(d.user[r]) * k_k],
                                                   &m.H[static_cast<std::size_t>(d.item[r]) * k_k],
                                                   k_k, d.value[r], k_mean, k_lr, k_reg);
}

/// Runs the waves as a GPU would: records of one wave in an arbitrary order (here reversed or
/// shuffled, which a wave's independence must make irrelevant).
void run_waves(Model& m, const SyntheticRatings& d, const std::vector<std::int64_t>& records,
               const Waves& w, bool shuffle) {
  std::mt19937 rng(7);
  for (int k = 0; k < w.waves(); ++k) {
    std::vector<std::int64_t> wave(w.order.begin() + w.wave_start[k],
                                   w.order.begin() + w.wave_start[k + 1]);
    if (shuffle) {
      std::shuffle(wave.begin(), wave.end(), rng);
    } else {
      std::reverse(wave.begin(), wave.end());
    }
    for (auto p : wave) {
      apply(m, d, records[static_cast<std::size_t>(p)]);
    }
  }
}

bool bitwise_equal(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(SgdUpdate, MatchesTheExampleFormula) {
  float w[3] = {0.1f, -0.2f, 0.3f}, h[3] = {0.5f, 0.25f, -0.125f};
  const float lr = 0.02f, reg = 0.05f, mean = 3.f, rating = 4.f;
  float dot = 0.f;
  for (int i = 0; i < 3; ++i) {
    dot += w[i] * h[i];
  }
  const float e = rating - mean - dot;
  float ew[3], eh[3];
  for (int i = 0; i < 3; ++i) {
    ew[i] = w[i] + lr * (e * h[i] - reg * w[i]);
  }
  for (int i = 0; i < 3; ++i) {
    eh[i] = h[i] + lr * (e * ew[i] - reg * h[i]); // h uses the updated w, as in sgd_mf
  }
  EXPECT_EQ(sgd_update(w, h, 3, rating, mean, lr, reg), e * e);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(w[i], ew[i]);
    EXPECT_EQ(h[i], eh[i]);
  }
  EXPECT_EQ(sgd_error2(w, h, 3, rating, mean),
            (rating - mean - sgd_dot(w, h, 3)) * (rating - mean - sgd_dot(w, h, 3)));
}

TEST(SgdWaveReplay, WavesEqualReplayAndInOrderRunBitwise) {
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const double skew = 0.4 * static_cast<double>(seed - 1); // uniform .. 2.0
    const auto d = make_synthetic_ratings(300, 200, 6000, skew, seed);
    std::vector<std::int64_t> all(d.size());
    for (std::size_t r = 0; r < d.size(); ++r) {
      all[r] = static_cast<std::int64_t>(r);
    }
    for (std::int64_t limit : {0, 33}) {
      WaveOptions o;
      o.max_wave_size = limit;
      const Waves w = build_waves(d.user.data(), d.item.data(), d.size(), d.users, d.items, o);
      Model waves = initial(d), waves2 = initial(d), replay = initial(d), serial = initial(d);
      for (int epoch = 0; epoch < 3; ++epoch) {
        run_waves(waves, d, all, w, /*shuffle=*/false);
        run_waves(waves2, d, all, w, /*shuffle=*/true);
        for (auto r : w.order) {
          apply(replay, d, r); // the serial replay of the wave order
        }
        for (auto r : all) {
          apply(serial, d, r); // the serial run in record order
        }
      }
      EXPECT_TRUE(bitwise_equal(waves.W, replay.W)) << "seed " << seed;
      EXPECT_TRUE(bitwise_equal(waves.H, replay.H)) << "seed " << seed;
      EXPECT_TRUE(bitwise_equal(waves.err2, replay.err2)) << "seed " << seed;
      EXPECT_TRUE(bitwise_equal(waves2.W, replay.W)) << "seed " << seed;
      EXPECT_TRUE(bitwise_equal(waves2.H, replay.H)) << "seed " << seed;
      // the wave order keeps every key's order, so it equals the in-order run too
      EXPECT_TRUE(bitwise_equal(replay.W, serial.W)) << "seed " << seed;
      EXPECT_TRUE(bitwise_equal(replay.H, serial.H)) << "seed " << seed;
      EXPECT_TRUE(bitwise_equal(replay.err2, serial.err2)) << "seed " << seed;
    }
  }
}

TEST(SgdWaveReplay, NegativeControlAWaveWithAConflictDiffers) {
  // Two records of one user in one "wave", run in the other order: the result changes, so the
  // bitwise comparisons above would catch a wrong schedule.
  SyntheticRatings d;
  d.users = 1;
  d.items = 2;
  d.user = {0, 0};
  d.item = {0, 1};
  d.value = {5.f, 1.f};
  Model a = initial(d), b = initial(d);
  apply(a, d, 0);
  apply(a, d, 1);
  apply(b, d, 1);
  apply(b, d, 0);
  EXPECT_FALSE(bitwise_equal(a.W, b.W));
}

TEST(SgdWaveReplay, RotationSubEpochEqualsReplayOfItsOrder) {
  const auto d = make_synthetic_ratings(400, 300, 12000, 1.2, 11);
  for (int g : {1, 2, 3, 4}) {
    const auto blocks =
        split_into_blocks(d.user.data(), d.item.data(), d.size(), d.users, d.items, g);
    const auto steps = rotation_block_order(g);
    Model gpus = initial(d), replay = initial(d);
    std::vector<std::int64_t> order; // the serial order the run is equal to
    for (const auto& step : steps) {
      // the GPUs of one step run concurrently: emulate by running them in reverse GPU order
      for (int gpu = g - 1; gpu >= 0; --gpu) {
        const auto& recs =
            blocks[static_cast<std::size_t>(step[gpu].user_block * g + step[gpu].item_block)];
        std::vector<std::int32_t> u, i;
        for (auto r : recs) {
          u.push_back(d.user[r]);
          i.push_back(d.item[r]);
        }
        const Waves w = build_waves(u.data(), i.data(), u.size(), d.users, d.items);
        ASSERT_EQ(check_waves(w, u.data(), i.data(), u.size(), d.users, d.items), "");
        run_waves(gpus, d, recs, w, /*shuffle=*/true);
      }
      for (int gpu = 0; gpu < g; ++gpu) { // recorded order: step by step, GPU by GPU, wave by wave
        const auto& recs =
            blocks[static_cast<std::size_t>(step[gpu].user_block * g + step[gpu].item_block)];
        std::vector<std::int32_t> u, i;
        for (auto r : recs) {
          u.push_back(d.user[r]);
          i.push_back(d.item[r]);
        }
        const Waves w = build_waves(u.data(), i.data(), u.size(), d.users, d.items);
        for (auto p : w.order) {
          order.push_back(recs[static_cast<std::size_t>(p)]);
        }
      }
    }
    ASSERT_EQ(order.size(), d.size());
    for (auto r : order) {
      apply(replay, d, r);
    }
    EXPECT_TRUE(bitwise_equal(gpus.W, replay.W)) << g << " GPUs";
    EXPECT_TRUE(bitwise_equal(gpus.H, replay.H)) << g << " GPUs";
    EXPECT_TRUE(bitwise_equal(gpus.err2, replay.err2)) << g << " GPUs";
  }
}

} // namespace
