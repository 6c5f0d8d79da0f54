// Sparse logistic regression by SGD on LIBSVM data (labels +1 / -1).
//
// The weights are `buffered`: examples share features, so exact parallelism would be serial;
// the user accepts Hogwild-style relaxed consistency (writes buffered per worker and merged) and
// the loop runs data-parallel. L2 regularisation is applied to the features an example touches
// (the usual lazy form for sparse SGD); the learning rate decays as lr / sqrt(epoch).
//
//   logreg --data a9a --test a9a.t --epochs 10

#include <rotor/rotor.h>

#include "../common/Classifier.h"
#include "../common/Flags.h"
#include "../common/Main.h"
#include "../common/Report.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

namespace {

const char* const k_usage = "--data TRAIN [--test TEST] [--epochs 10] [--lr 0.03] [--l2 1e-5]\n"
                            "       [--seed 1]";

/// log(1 + exp(-m)) without overflow: the log-loss of margin m = y * score.
double log_loss(double margin) {
  return margin > 0 ? std::log1p(std::exp(-margin)) : -margin + std::log1p(std::exp(margin));
}

using rotor::examples::Evaluation;

/// Accuracy and mean log-loss of `w` (bias last) on `data`.
Evaluation evaluate(rotor::LibsvmData& data, rotor::DistArray<float, 1>& w) {
  const std::int64_t bias = w.size() - 1;
  double correct = 0;
  double loss = 0;
#pragma rotor parallel_for
  for (const rotor::LibsvmExample& ex : data.examples) {
    double score = w[bias];
    for (const auto& f : data.features.row(ex.row)) {
      score += w[f.index] * f.value;
    }
    const double margin = ex.label * score;
    correct += margin > 0 ? 1.0 : 0.0;
    loss += log_loss(margin);
  }
  const auto n = static_cast<double>(data.examples.size());
  return {correct / n, loss / n};
}

int run(int argc, char** argv) {
  rotor::examples::Flags flags(argc, argv, "logreg", k_usage);
  const std::string train_path = flags.required("data");
  const std::string test_path = flags.str("test", "");
  const auto epochs =
      flags.in_range<std::int64_t>("epochs", flags.integer("epochs", 10), 0, 100000);
  const double lr0 = flags.real("lr", 0.03);
  const auto l2 = static_cast<float>(flags.real("l2", 1e-5));
  const auto seed = static_cast<std::uint64_t>(flags.integer("seed", 1));
  flags.finish();

  rotor::examples::LabelledSets sets =
      rotor::examples::load_labelled_sets(flags, train_path, test_path, seed);
  rotor::LibsvmData& train = sets.train;
  rotor::LibsvmData& test = sets.test;
  const std::int64_t features = sets.features;
  rotor::DistArray<float, 1> w({features + 1}, "w"); // the last weight is the bias
  w.fill_normal(0.f, 0.01f, seed + 1);
  const std::int64_t bias = features;
  // Data-parallel SGD merges the workers' changes by their mean (model averaging): a sum would
  // apply every worker's step to the same weights. The serial build has one worker: plain SGD.
  rotor::buffered_mean(w);
  std::printf("logreg: examples=%lld test=%lld features=%lld nonzeros=%lld\n",
              static_cast<long long>(train.examples.size()),
              static_cast<long long>(test.examples.size()), static_cast<long long>(features),
              static_cast<long long>(train.features.nonzeros()));

  rotor::examples::EpochLog log(sets);
  for (std::int64_t epoch = 1; epoch <= epochs; ++epoch) {
    const rotor::examples::Stopwatch clock;
    const auto lr = static_cast<float>(lr0 / std::sqrt(static_cast<double>(epoch)));
    double loss = 0;
#pragma rotor parallel_for buffered(w)
    for (const rotor::LibsvmExample& ex : train.examples) {
      const auto x = train.features.row(ex.row);
      double score = w[bias];
      for (const auto& f : x) {
        score += w[f.index] * f.value;
      }
      const double margin = ex.label * score;
      loss += log_loss(margin);
      // d/d score of log(1 + exp(-y score)) = -y / (1 + exp(y score))
      const auto g = static_cast<float>(-ex.label / (1.0 + std::exp(margin)));
      for (const auto& f : x) {
        w[f.index] -= lr * (g * f.value + l2 * w[f.index]);
      }
      w[bias] -= lr * g;
    }
    const double sgd = clock.seconds();
    Evaluation held_out;
    if (!test.examples.empty()) {
      held_out = evaluate(test, w);
    }
    log.epoch(epoch, loss / static_cast<double>(train.examples.size()), held_out, clock.seconds(),
              sgd, clock.restored());
  }
  log.finish(epochs, rotor::examples::fnv1a(w.data(), sizeof(float) * w.size()));
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  return rotor::examples::main_with_session("logreg", argc, argv, run);
}
