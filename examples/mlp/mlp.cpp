// A small multi-layer perceptron (one tanh hidden layer, logistic output) trained by mini-batch
// SGD on LIBSVM data (labels +1 / -1), with Eigen for the vector algebra.
//
// Data-parallel with gradient allreduce: each mini-batch is one parallel loop whose gradient
// arrays are `buffered` (every worker sums its examples' gradients into a private copy; the
// copies are summed in worker order and across ranks at the loop's end, a dense allreduce), then
// every rank takes the same SGD step. The serial build runs the same loops in order.
//
//   mlp --data a9a --test a9a.t --epochs 10 --hidden 32 --batch 256 --lr 0.5

#include <rotor/rotor.h>

#include "../common/Classifier.h"
#include "../common/Flags.h"
#include "../common/Main.h"
#include "../common/Report.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

const char* const k_usage = "--data TRAIN [--test TEST] [--epochs 10] [--hidden 32] [--batch 256]\n"
                            "       [--lr 0.5] [--seed 1]";

/// log(1 + exp(-m)) without overflow: the log-loss of margin m = y * score.
double log_loss(double margin) {
  return margin > 0 ? std::log1p(std::exp(-margin)) : -margin + std::log1p(std::exp(margin));
}

/// The network: input i -> hidden row i of W1 (inputs x hidden), hidden bias b1 (1 x hidden),
/// output weights w2 (1 x hidden) and bias b2[0].
struct Model {
  rotor::DistArray<float, 2> W1;
  rotor::DistArray<float, 2> b1;
  rotor::DistArray<float, 2> w2;
  rotor::DistArray<float, 1> b2;
  Model(std::int64_t inputs, std::int64_t hidden)
      : W1({inputs, hidden}), b1({1, hidden}), w2({1, hidden}), b2({1}) {}
};

/// tanh(b1 + x W1) for a sparse input row x. Element reads: rotor-cc counts row() as a write.
template <class Row>
Eigen::VectorXf hidden_layer(const rotor::DistArray<float, 2>& W1,
                             const rotor::DistArray<float, 2>& b1, const Row& x) {
  const std::int64_t hidden = b1.shape()[1];
  Eigen::VectorXf z(hidden);
  for (std::int64_t k = 0; k < hidden; ++k) {
    z[k] = b1(0, k);
  }
  for (const auto& f : x) {
    for (std::int64_t k = 0; k < hidden; ++k) {
      z[k] += f.value * W1(f.index, k);
    }
  }
  return z.array().tanh().matrix();
}

/// The output's score w2 . h + b2.
double score(const rotor::DistArray<float, 2>& w2, const rotor::DistArray<float, 1>& b2,
             const Eigen::VectorXf& h) {
  double s = b2[0];
  for (std::int64_t k = 0; k < h.size(); ++k) {
    s += static_cast<double>(w2(0, k)) * h[k];
  }
  return s;
}

/// p -= step * g, element-wise over the whole array.
template <int N>
void sgd_step(rotor::DistArray<float, N>& p, rotor::DistArray<float, N>& g, float step) {
  Eigen::Map<Eigen::VectorXf> pv(p.data(), p.size());
  Eigen::Map<Eigen::VectorXf> gv(g.data(), g.size());
  pv -= step * gv;
  gv.setZero();
}

using rotor::examples::Evaluation;

/// Accuracy and mean log-loss of the network on `data`.
Evaluation evaluate(rotor::LibsvmData& data, const Model& m) {
  const auto& W1 = m.W1; // const: row() reads
  const auto& b1 = m.b1;
  const auto& w2 = m.w2;
  const auto& b2 = m.b2;
  double correct = 0;
  double loss = 0;
#pragma rotor parallel_for
  for (const rotor::LibsvmExample& ex : data.examples) {
    const Eigen::VectorXf h = hidden_layer(W1, b1, data.features.row(ex.row));
    const double margin = ex.label * score(w2, b2, h);
    correct += margin > 0 ? 1.0 : 0.0;
    loss += log_loss(margin);
  }
  const auto n = static_cast<double>(data.examples.size());
  return {correct / n, loss / n};
}

/// The mini-batches: on every rank, its share of the examples cut into the same number of
/// consecutive slices (one global batch = slice b of every rank).
std::vector<rotor::Dataset<rotor::LibsvmExample>>
make_batches(const rotor::Dataset<rotor::LibsvmExample>& examples, std::int64_t batch) {
  const std::int64_t total = examples.size();
  const std::int64_t count = std::max<std::int64_t>(1, (total + batch - 1) / batch);
  const auto local = static_cast<std::int64_t>(examples.local_size());
  std::vector<rotor::Dataset<rotor::LibsvmExample>> out;
  for (std::int64_t b = 0; b < count; ++b) {
    const std::int64_t lo = b * local / count, hi = (b + 1) * local / count;
    std::vector<rotor::LibsvmExample> part;
    for (std::int64_t i = lo; i < hi; ++i) {
      part.push_back(examples[static_cast<std::size_t>(i)]);
    }
    out.push_back(rotor::Dataset<rotor::LibsvmExample>::distributed(std::move(part), 0));
  }
  return out;
}

int run(int argc, char** argv) {
  rotor::examples::Flags flags(argc, argv, "mlp", k_usage);
  const std::string train_path = flags.required("data");
  const std::string test_path = flags.str("test", "");
  const auto epochs =
      flags.in_range<std::int64_t>("epochs", flags.integer("epochs", 10), 0, 100000);
  const auto hidden = flags.in_range<std::int64_t>("hidden", flags.integer("hidden", 32), 1, 4096);
  const auto batch = flags.in_range<std::int64_t>("batch", flags.integer("batch", 256), 1, 1 << 24);
  const double lr0 = flags.real("lr", 0.5);
  const auto seed = static_cast<std::uint64_t>(flags.integer("seed", 1));
  flags.finish();

  rotor::examples::LabelledSets sets =
      rotor::examples::load_labelled_sets(flags, train_path, test_path, seed);
  rotor::LibsvmData& train = sets.train;
  rotor::LibsvmData& test = sets.test;
  const std::int64_t inputs = sets.features;
  Model model(inputs, hidden);
  model.W1.fill_normal(0.f, static_cast<float>(1.0 / std::sqrt(8.0)), seed + 1);
  model.w2.fill_normal(0.f, static_cast<float>(1.0 / std::sqrt(static_cast<double>(hidden))),
                       seed + 2);
  Model grad(inputs, hidden);
  const auto& W1 = model.W1; // the loops read the model (const: row() reads)...
  const auto& b1 = model.b1;
  const auto& w2 = model.w2;
  const auto& b2 = model.b2;
  auto& gW1 = grad.W1; // ...and sum the gradients (buffered)
  auto& gb1 = grad.b1;
  auto& gw2 = grad.w2;
  auto& gb2 = grad.b2;
  std::vector<rotor::Dataset<rotor::LibsvmExample>> batches = make_batches(train.examples, batch);
  std::printf("mlp: examples=%lld test=%lld inputs=%lld hidden=%lld batches=%lld\n",
              static_cast<long long>(train.examples.size()),
              static_cast<long long>(test.examples.size()), static_cast<long long>(inputs),
              static_cast<long long>(hidden), static_cast<long long>(batches.size()));

  rotor::examples::EpochLog log(sets);
  for (std::int64_t epoch = 1; epoch <= epochs; ++epoch) {
    const rotor::examples::Stopwatch clock;
    const auto lr = static_cast<float>(lr0 / std::sqrt(static_cast<double>(epoch)));
    double loss = 0;
    for (rotor::Dataset<rotor::LibsvmExample>& mini : batches) {
      const auto n = static_cast<float>(mini.size());
#pragma rotor parallel_for buffered(gW1, gb1, gw2, gb2)
      for (const rotor::LibsvmExample& ex : mini) {
        const auto x = train.features.row(ex.row);
        const Eigen::VectorXf h = hidden_layer(W1, b1, x);
        const double margin = ex.label * score(w2, b2, h);
        loss += log_loss(margin);
        // d/d score of log(1 + exp(-y score)) = -y / (1 + exp(y score))
        const auto g = static_cast<float>(-ex.label / (1.0 + std::exp(margin)));
        // back-propagation; the accumulations are element loops (Eigen's packet += into a row
        // of a buffered array trips GCC 12's -Warray-bounds)
        Eigen::VectorXf dz(hidden);
        for (std::int64_t k = 0; k < hidden; ++k) {
          dz[k] = g * w2(0, k) * (1.0f - h[k] * h[k]);
        }
        gb2[0] += g;
        for (std::int64_t k = 0; k < hidden; ++k) {
          gw2(0, k) += g * h[k];
          gb1(0, k) += dz[k];
        }
        for (const auto& f : x) {
          for (std::int64_t k = 0; k < hidden; ++k) {
            gW1(f.index, k) += f.value * dz[k];
          }
        }
      }
      const float step = n > 0 ? lr / n : 0.f;
      sgd_step(model.W1, gW1, step);
      sgd_step(model.b1, gb1, step);
      sgd_step(model.w2, gw2, step);
      model.b2[0] -= step * gb2[0]; // one element: no Eigen map (GCC 12 -Warray-bounds)
      gb2[0] = 0.f;
    }
    const double sgd = clock.seconds();
    Evaluation held_out;
    if (!test.examples.empty()) {
      held_out = evaluate(test, model);
    }
    log.epoch(epoch, loss / static_cast<double>(train.examples.size()), held_out, clock.seconds(),
              sgd, clock.restored());
  }
  log.finish(epochs, rotor::examples::fnv1a(W1.data(), sizeof(float) * W1.size()));
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  return rotor::examples::main_with_session("mlp", argc, argv, run);
}
