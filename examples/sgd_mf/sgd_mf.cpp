// SGD matrix factorization: ratings (user, item, rating) -> W (users x k), H (items x k) such
// that rating ~ mean + W[user] . H[item], by stochastic gradient descent with L2 regularisation.
//
// The plain serial program a practitioner writes, plus one pragma per loop. Built twice from this
// source: `sgd_mf_serial` (g++, the pragmas are ignored) and `sgd_mf` (rotor-cc).
//
//   sgd_mf --data train.csv --test test.csv --k 32 --epochs 20
//   mpirun -np 4 ./sgd_mf --data train.csv --test test.csv

#include <rotor/rotor.h>

#include "../common/Flags.h"
#include "../common/Main.h"
#include "../common/Report.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>

struct Rating {
  std::int32_t user;
  std::int32_t item;
  float value;
};

namespace {

const char* const k_usage =
    "--data TRAIN [--test TEST] [--format csv|tsv|space] [--k 32] [--epochs 20] [--lr 0.02]\n"
    "       [--reg 0.05] [--seed 1] [--model sgd_mf_model.h5|none]";

rotor::CsvOptions csv_options(rotor::examples::Flags& flags) {
  rotor::CsvOptions options;
  options.columns = {0, 1, 2}; // user item rating; further columns (timestamps, ...) are ignored
  const std::string format = flags.str("format", "csv");
  if (format == "csv") {
    options.delimiter = ',';
  } else if (format == "tsv") {
    options.delimiter = '\t';
  } else if (format == "space") {
    options.delimiter = ' ';
  } else {
    flags.fail("--format: expected csv, tsv or space, got '" + format + "'");
  }
  return options;
}

/// Root mean squared error of mean + W[user] . H[item] over `ratings`.
double rmse(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 2>& W,
            rotor::DistArray<float, 2>& H, float mean) {
  double squared_error = 0;
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    const float e = r.value - mean - W.row(r.user).dot(H.row(r.item));
    squared_error += e * e;
  }
  return std::sqrt(squared_error / static_cast<double>(ratings.size()));
}

/// " test_rmse=0.9011", or nothing without --test (there is no test RMSE to print).
std::string test_words(const rotor::Dataset<Rating>& test, double test_rmse) {
  if (test.empty()) {
    return {};
  }
  char buf[48];
  std::snprintf(buf, sizeof buf, " test_rmse=%.4f", test_rmse);
  return buf;
}

int run(int argc, char** argv) {
  rotor::examples::Flags flags(argc, argv, "sgd_mf", k_usage);
  const std::string train_path = flags.required("data");
  const std::string test_path = flags.str("test", "");
  const rotor::CsvOptions options = csv_options(flags);
  const auto k = flags.in_range<std::int64_t>("k", flags.integer("k", 32), 1, 4096);
  const auto epochs =
      flags.in_range<std::int64_t>("epochs", flags.integer("epochs", 20), 0, 100000);
  const auto lr = static_cast<float>(flags.real("lr", 0.02));
  const auto reg = static_cast<float>(flags.real("reg", 0.05));
  const auto seed = static_cast<std::uint64_t>(flags.integer("seed", 1));
  const std::string model_path = flags.str("model", "sgd_mf_model.h5");
  flags.finish();

  rotor::Dataset<Rating> ratings = rotor::load_csv<Rating>(train_path, options);
  rotor::Dataset<Rating> test;
  if (!test_path.empty()) {
    test = rotor::load_csv<Rating>(test_path, options);
  }
  if (ratings.empty()) {
    flags.fail(train_path + ": no ratings");
  }
  const std::int64_t users = std::max(ratings.extent(&Rating::user), test.extent(&Rating::user));
  const std::int64_t items = std::max(ratings.extent(&Rating::item), test.extent(&Rating::item));

  // The global mean is part of the model: the factors only learn the deviations.
  double sum = 0;
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    sum += r.value;
  }
  const auto mean = static_cast<float>(sum / static_cast<double>(ratings.size()));

  rotor::DistArray<float, 2> W({users, k}, "W");
  rotor::DistArray<float, 2> H({items, k}, "H");
  W.fill_normal(0.f, 0.1f, seed);
  H.fill_normal(0.f, 0.1f, seed + 1);
  std::printf("sgd_mf: ratings=%lld test=%lld users=%lld items=%lld k=%lld mean=%.4f\n",
              static_cast<long long>(ratings.size()), static_cast<long long>(test.size()),
              static_cast<long long>(users), static_cast<long long>(items),
              static_cast<long long>(k), mean);

  double train_rmse = 0;
  double test_rmse = std::nan("");
  double total_seconds = 0;
  double sgd_seconds = 0;
  std::int64_t computed_epochs = 0; // not restored by --rotor-resume: the throughput's epochs
  for (std::int64_t epoch = 1; epoch <= epochs; ++epoch) {
    const rotor::examples::Stopwatch epoch_clock;
    double loss = 0;
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      auto w = W.row(r.user);
      auto h = H.row(r.item);
      const float e = r.value - mean - w.dot(h);
      loss += e * e;
      w += lr * (e * h - reg * w);
      h += lr * (e * w - reg * h);
    }
    const double sgd = epoch_clock.seconds();
    const bool restored = epoch_clock.restored();
    if (!restored) {
      sgd_seconds += sgd;
      ++computed_epochs;
    }
    train_rmse = std::sqrt(loss / static_cast<double>(ratings.size()));
    if (!test.empty()) {
      test_rmse = rmse(test, W, H, mean);
    }
    const double seconds = epoch_clock.seconds();
    total_seconds += seconds;
    rotor::report_metric("train_rmse", train_rmse, epoch); // --rotor-metrics=FILE (rotor-plot)
    if (!test.empty()) {
      rotor::report_metric("test_rmse", test_rmse, epoch);
    }
    std::printf(
        "epoch=%lld train_rmse=%.4f%s seconds=%.3f updates_per_s=%s\n",
        static_cast<long long>(epoch), train_rmse, test_words(test, test_rmse).c_str(), seconds,
        rotor::examples::epoch_rate(static_cast<double>(ratings.size()), sgd, restored).c_str());
    std::fflush(stdout);
  }

  if (model_path != "none") {
    W.save_hdf5(model_path, "W");
    H.save_hdf5(model_path, "H");
  }
  std::uint64_t hash = rotor::examples::fnv1a(W.data(), sizeof(float) * W.size());
  hash = rotor::examples::fnv1a(H.data(), sizeof(float) * H.size(), hash);
  const double updates = static_cast<double>(ratings.size()) * static_cast<double>(computed_epochs);
  std::printf("final epochs=%lld train_rmse=%.4f%s seconds=%.3g updates_per_s=%s "
              "model_hash=%s\n",
              static_cast<long long>(epochs), train_rmse, test_words(test, test_rmse).c_str(),
              total_seconds,
              rotor::examples::sci(sgd_seconds > 0 ? updates / sgd_seconds : 0).c_str(),
              rotor::examples::hex64(hash).c_str());
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  return rotor::examples::main_with_session("sgd_mf", argc, argv, run);
}
