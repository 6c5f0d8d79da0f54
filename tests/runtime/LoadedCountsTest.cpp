// The first loop over a loaded dataset takes its key ranges and histograms from the loader's
// counts (distarray's LoadedKeyCounts.h) instead of passes over the records: its blocks, tiles,
// order and results equal those of the same records built in memory (counted by passes).
#include "LoopTestUtil.h"
#include "ScheduleSettings.h"

#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace rotor::test {
namespace {

using codegen::Kind;
using codegen::Role;

/// `records` as CSV in a file every rank reads (rank 0 writes it), removed afterwards.
class RatingsFile {
public:
  explicit RatingsFile(const std::vector<Rating>& records) {
    std::uint64_t tag = static_cast<std::uint64_t>(::getpid());
    detail::collective().allreduce_max(reinterpret_cast<std::int64_t*>(&tag), 1);
    path_ = (std::filesystem::temp_directory_path() /
             ("rotor_loaded_counts_" + std::to_string(tag) + ".csv"))
                .string();
    if (detail::collective().rank() == 0) {
      std::ofstream out(path_);
      for (const Rating& r : records) {
        out << r.user << ',' << r.item << ',' << r.value << '\n';
      }
    }
    detail::global_sum(0); // the file is complete before any rank reads it
  }
  ~RatingsFile() {
    detail::global_sum(0);
    if (detail::collective().rank() == 0) {
      std::filesystem::remove(path_);
    }
  }
  const std::string& path() const { return path_; }

private:
  std::string path_;
};

/// The same share of records as `loaded` holds on this rank, built in memory (no counts).
Dataset<Rating> built_like(Dataset<Rating>& loaded) {
  std::vector<Rating> mine(loaded.begin(), loaded.end());
  const std::uint64_t n = mine.size();
  const std::vector<char> all = detail::gather_all(&n, sizeof n);
  std::uint64_t first = 0;
  for (int r = 0; r < detail::collective().rank(); ++r) {
    std::uint64_t v = 0;
    std::memcpy(&v, all.data() + static_cast<std::size_t>(r) * sizeof v, sizeof v);
    first += v;
  }
  return Dataset<Rating>::distributed(std::move(mine), first);
}

struct Run {
  std::vector<std::vector<std::uint64_t>> orders;
  DistArray<float, 2> W, H;
};

Run three_epochs(Dataset<Rating>& ratings, int users, int items) {
  detail::forget_loop_executions(); // both runs draw the orders of executions 0, 1, 2
  const int k = 4;
  Run run{{}, DistArray<float, 2>({users, k}), DistArray<float, 2>({items, k})};
  run.W.fill_normal(0.f, 0.1f, 1);
  run.H.fill_normal(0.f, 0.1f, 2);
  const auto body = [](const Rating& r, auto& W, auto& H, auto& loss) {
    auto w = W.row(r.user);
    auto h = H.row(r.item);
    const float e = r.value - w.dot(h);
    loss += e * e;
    w += 0.005f * (e * h - 0.01f * w);
    h += 0.005f * (e * w - 0.01f * h);
  };
  const auto s = spec(Kind::rotation, {0, 1},
                      {array("W", Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}),
                       array("H", Role::rotating, 1, true, {{1, 0, 0}, {-1, 0, 0}})});
  for (int epoch = 0; epoch < 3; ++epoch) {
    double loss = 0;
    codegen::run_loop(s, ratings, codegen::keys(&Rating::user, &Rating::item),
                      std::tie(run.W, run.H), std::tie(loss), body);
    run.orders.push_back(last_order());
  }
  return run;
}

void expect_loaded_equals_built(const char* blocks_flag) {
  CaptureOrders capture;
  BlocksSetting blocks(blocks_flag);
  // users up to 300000: more than 2^17 key values, so the histograms count bins of 4 values
  const int users = 300000, items = 700;
  const std::vector<Rating> records = make_ratings(20000, users, items, 5);
  RatingsFile file(records);
  Dataset<Rating> loaded = load_csv<Rating>(file.path());
  Dataset<Rating> built = built_like(loaded);
  // built_like read the records through begin(), which may change them: the counts no longer
  // vouch for them (a fresh load has them again)
  EXPECT_EQ(detail::DatasetInternals::loaded_key_counts(loaded, offsetof(Rating, user)), nullptr);
  loaded = load_csv<Rating>(file.path());
  const auto* user_counts =
      detail::DatasetInternals::loaded_key_counts(loaded, offsetof(Rating, user));
  ASSERT_NE(user_counts, nullptr);
  std::uint64_t counted = 0;
  for (std::uint32_t c : *user_counts) {
    counted += c;
  }
  EXPECT_EQ(counted, detail::DatasetInternals::records(loaded).size());
  EXPECT_EQ(detail::DatasetInternals::loaded_key_counts(built, offsetof(Rating, user)), nullptr);

  const Run from_load = three_epochs(loaded, users, items);
  EXPECT_EQ(detail::DatasetInternals::loaded_key_counts(loaded, offsetof(Rating, user)), nullptr)
      << "the layout moved the records: the counts are stale";
  const Run from_passes = three_epochs(built, users, items);
  ASSERT_EQ(from_load.orders.size(), from_passes.orders.size());
  for (std::size_t e = 0; e < from_load.orders.size(); ++e) {
    EXPECT_EQ(from_load.orders[e], from_passes.orders[e]) << "epoch " << e;
  }
  EXPECT_TRUE(bitwise_equal(from_load.W, from_passes.W));
  EXPECT_TRUE(bitwise_equal(from_load.H, from_passes.H));
}

TEST(LoadedCounts, LayoutFromLoaderCountsEqualsLayoutFromPasses) {
  expect_loaded_equals_built("auto");
}

TEST(LoadedCounts, TiledLayoutFromLoaderCountsEqualsLayoutFromPasses) {
  expect_loaded_equals_built("64");
}

} // namespace
} // namespace rotor::test
