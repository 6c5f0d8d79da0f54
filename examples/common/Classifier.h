#pragma once
/// \file
/// What the two LIBSVM classifiers (logreg, mlp) share around their loops: loading the training
/// and test sets, and the per-epoch and closing lines with their metrics. The loops themselves
/// (and the log-loss they call) stay in each example, where rotor-cc analyses them.

#include "Flags.h"
#include "Report.h"

#include <rotor/rotor.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

namespace rotor::examples {

/// Accuracy and mean log-loss on the test set (NaN before the first evaluation).
struct Evaluation {
  double accuracy = std::nan("");
  double loss = std::nan("");
};

/// The training set, shuffled, and the test set (empty without --test).
struct LabelledSets {
  rotor::LibsvmData train;
  rotor::LibsvmData test;
  std::int64_t features = 0; ///< the larger feature count of the two
};

/// Loads `train_path` and `test_path` (empty: no test set). LIBSVM files are often grouped by
/// class (20 Newsgroups, SpamAssassin) and SGD needs a mixed order: the training examples are
/// shuffled by `seed` (the order depends only on the seed, never on the number of ranks).
inline LabelledSets load_labelled_sets(Flags& flags, const std::string& train_path,
                                       const std::string& test_path, std::uint64_t seed) {
  LabelledSets sets;
  sets.train = rotor::load_libsvm(train_path);
  if (!test_path.empty()) {
    sets.test = rotor::load_libsvm(test_path);
  }
  if (sets.train.examples.empty()) {
    flags.fail(train_path + ": no examples");
  }
  sets.train.examples.shuffle(seed);
  sets.features = std::max(sets.train.num_features, sets.test.num_features);
  return sets;
}

/// Prints `epoch=N train_loss=... [test_accuracy=... test_loss=...] seconds=... examples_per_s=...`
/// per epoch (reporting the metrics for --rotor-metrics / rotor-plot) and the closing `final ...`
/// line. Throughput counts the SGD loops only (not epochs --rotor-resume restored); seconds
/// include the evaluation.
class EpochLog {
public:
  explicit EpochLog(const LabelledSets& sets)
      : examples_(static_cast<double>(sets.train.examples.size())),
        has_test_(!sets.test.examples.empty()) {}

  void epoch(std::int64_t epoch, double train_loss, const Evaluation& held_out, double seconds,
             double sgd_seconds, bool restored) {
    train_loss_ = train_loss;
    held_out_ = held_out;
    seconds_ += seconds;
    if (!restored) {
      sgd_seconds_ += sgd_seconds;
      ++computed_epochs_;
    }
    rotor::report_metric("train_loss", train_loss, epoch);
    if (has_test_) {
      rotor::report_metric("test_accuracy", held_out.accuracy, epoch);
      rotor::report_metric("test_loss", held_out.loss, epoch);
    }
    std::printf("epoch=%lld train_loss=%.4f%s seconds=%.3f examples_per_s=%s\n",
                static_cast<long long>(epoch), train_loss, test_words().c_str(), seconds,
                epoch_rate(examples_, sgd_seconds, restored).c_str());
    std::fflush(stdout);
  }

  void finish(std::int64_t epochs, std::uint64_t model_hash) const {
    const double examples = examples_ * static_cast<double>(computed_epochs_);
    std::printf("final epochs=%lld train_loss=%.4f%s seconds=%.3g examples_per_s=%s "
                "model_hash=%s\n",
                static_cast<long long>(epochs), train_loss_, test_words().c_str(), seconds_,
                sci(sgd_seconds_ > 0 ? examples / sgd_seconds_ : 0).c_str(),
                hex64(model_hash).c_str());
  }

private:
  /// " test_accuracy=0.8471 test_loss=0.3290", or nothing without a test set.
  std::string test_words() const {
    if (!has_test_) {
      return {};
    }
    char buf[80];
    std::snprintf(buf, sizeof buf, " test_accuracy=%.4f test_loss=%.4f", held_out_.accuracy,
                  held_out_.loss);
    return buf;
  }

  double examples_;
  bool has_test_;
  double train_loss_ = 0;
  Evaluation held_out_;
  double seconds_ = 0;
  double sgd_seconds_ = 0;
  std::int64_t computed_epochs_ = 0;
};

} // namespace rotor::examples
