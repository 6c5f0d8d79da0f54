// The soundness checker: plan_loop's plans pass on random models, and wrong plans are caught
// (a checker that never fails would prove nothing).

#include "TestModels.h"

#include "rotor/analysis/LoopModelText.h"
#include "rotor/analysis/Plan.h"
#include "rotor/analysis/SoundnessCheck.h"

#include <gtest/gtest.h>

namespace rotor::analysis {
namespace {

const char* const k_mf = "dataset user item\narray W 2\narray H 2\nwrite W[user][:]\n"
                         "write H[item][:]\n";

/// Checks `plan` on many seeds; true when some seed finds a violation.
bool caught(const LoopModel& m, const Plan& plan) {
  CheckOptions opt;
  opt.instances = 8;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    if (!check_plan(m, plan, seed, opt).ok) {
      return true;
    }
  }
  return false;
}

TEST(SoundnessCheck, RandomModelsHaveNoViolations) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 3000; ++i) {
    const LoopModel m = random_loop_model(rng);
    const Plan p = plan_loop(m);
    const CheckResult r = check_plan(m, p, rng());
    ASSERT_TRUE(r.ok) << "model " << i << ": " << r.violation << "\n" << loop_model_to_text(m);
  }
}

TEST(SoundnessCheck, RandomStencilsHaveNoViolations) {
  std::mt19937_64 rng(9);
  for (int i = 0; i < 2000; ++i) {
    const LoopModel m = random_stencil_model(rng);
    const Plan p = plan_loop(m);
    const CheckResult r = check_plan(m, p, rng());
    ASSERT_TRUE(r.ok) << "model " << i << ": " << r.violation << "\n" << loop_model_to_text(m);
  }
}

TEST(SoundnessCheck, ShippedStylePlansPass) {
  for (const char* text :
       {k_mf,
        "ordered\nindex_space 2\narray A 2\nwrite A[i0][i1]\nread A[i0-1][i1+1]\n"
        "read A[i0-1][i1]\n",
        "dataset i j k\narray A 2\narray B 2\narray C 2\nwrite A[i][:]\nwrite B[j][:]\n"
        "write C[k][:]\n"}) {
    const LoopModel m = test::model_from(text);
    EXPECT_FALSE(caught(m, plan_loop(m))) << text;
  }
}

TEST(SoundnessCheck, CatchesOneDThatIgnoresH) {
  const LoopModel m = test::model_from(k_mf);
  Plan wrong = plan_loop(m);
  wrong.kind = PlanKind::one_d;
  wrong.fields = {"user"};
  EXPECT_TRUE(caught(m, wrong));
}

TEST(SoundnessCheck, CatchesRotationOfAnOrderedLoop) {
  const LoopModel m = test::model_from(std::string("ordered\n") + k_mf);
  Plan wrong = plan_loop(m);
  ASSERT_EQ(wrong.kind, PlanKind::wavefront);
  wrong.kind = PlanKind::rotation;
  EXPECT_TRUE(caught(m, wrong));
}

TEST(SoundnessCheck, CatchesWavefrontWithoutSkew) {
  const LoopModel m =
      test::model_from("ordered\nindex_space 2\narray A 2\nwrite A[i0][i1]\nread A[i0-1][i1+1]\n");
  Plan wrong = plan_loop(m);
  wrong.kind = PlanKind::wavefront;
  wrong.matrix.clear();
  EXPECT_TRUE(caught(m, wrong));
}

TEST(SoundnessCheck, CatchesIndependentDatasetWrites) {
  // The Orion mistake: an all-zero vector over a Dataset is still a conflict.
  const LoopModel m = test::model_from("dataset a b\narray A 2\nwrite A[a][b]\n");
  Plan wrong = plan_loop(m);
  wrong.kind = PlanKind::independent;
  wrong.fields.clear();
  EXPECT_TRUE(caught(m, wrong));
}

TEST(SoundnessCheck, CatchesWrongRoleAndFootprint) {
  const LoopModel m = test::model_from(k_mf);
  Plan swapped = plan_loop(m);
  swapped.arrays[1].field = "user"; // H does not follow user blocks
  EXPECT_TRUE(caught(m, swapped));
  Plan narrow = plan_loop(m);
  narrow.arrays[0].dims[0].lo.value = 1; // W[user] is outside [user+1, user+0]
  EXPECT_TRUE(caught(m, narrow));
}

TEST(SoundnessCheck, MostWronglyIndependentPlansAreCaught) {
  std::mt19937_64 rng(11);
  int tried = 0;
  int found = 0;
  for (int i = 0; i < 4000 && tried < 300; ++i) {
    const LoopModel m = random_loop_model(rng);
    const Plan p = plan_loop(m);
    if (p.kind != PlanKind::serial || !m.escapes.empty() || !m.buffered.empty() ||
        p.dependences.empty()) {
      continue;
    }
    Plan wrong = p;
    wrong.kind = PlanKind::independent;
    ++tried;
    found += caught(m, wrong) ? 1 : 0;
  }
  ASSERT_GT(tried, 100);
  EXPECT_GT(found, tried * 9 / 10) << found << " of " << tried;
}

} // namespace
} // namespace rotor::analysis
