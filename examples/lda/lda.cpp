// Latent Dirichlet allocation by collapsed Gibbs sampling on a UCI bag-of-words corpus.
//
// One record per token; its topic lives in the record. Counts are arrays: doc_topic (D x K),
// word_topic (W x K) and topic_total (K), the latter `buffered` (every token touches it; a
// little staleness between workers is the standard trade, as in Yahoo!LDA and LightLDA), with
// topic_weight[k] = 1 / (topic_total[k] + V beta) cached beside it (SparseLDA caches it too).
// The default sampler is SparseLDA's bucket decomposition (Yao, Mimno, McCallum 2009);
// `--sampler naive` is the textbook O(K) loop.
//
// Each token carries its own random stream (seeded from the corpus position at load time), so
// a token's draws do not depend on which worker runs it or when.
//
//   lda --data docword.kos.txt --topics 100 --iterations 50

#include <rotor/rotor.h>

#include "../common/Flags.h"
#include "../common/Main.h"
#include "../common/Report.h"
#include "GibbsSampler.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>

struct Token {
  std::int32_t doc;
  std::int32_t word;
  std::int32_t topic;   ///< -1 until the first sweep assigns one
  std::uint32_t stream; ///< this token's random state (advanced on every draw)
};

namespace {

const char* const k_usage = "--data DOCWORD [--topics 100] [--iterations 50] [--alpha 0.1]\n"
                            "       [--beta 0.01] [--seed 1] [--sampler sparse|naive]";

using Counts = rotor::DistArray<std::int32_t, 2>;
using Totals = rotor::DistArray<std::int32_t, 1>;
using Weights = rotor::DistArray<double, 1>;

/// topic_weight[k] = 1 / (topic_total[k] + V beta), exactly (after a loop's merge).
void refresh_weights(const Totals& topic_total, Weights& topic_weight, double beta_sum) {
  for (std::int64_t k = 0; k < topic_total.size(); ++k) {
    topic_weight[k] = 1.0 / (topic_total[k] + beta_sum);
  }
}

/// Gives every token an unassigned topic and its own random stream. The stream seed is the
/// token's corpus position (document, word, occurrence within that doc-word line): a line's
/// tokens are always loaded by one rank, so the seeds do not depend on the number of ranks.
void initialise_tokens(rotor::Dataset<Token>& tokens, std::uint64_t seed) {
  std::uint32_t occurrence = 0;
  for (std::size_t i = 0; i < tokens.local_size(); ++i) {
    Token& t = tokens[i];
    const bool same_line = i > 0 && tokens[i - 1].doc == t.doc && tokens[i - 1].word == t.word;
    occurrence = same_line ? occurrence + 1 : 0;
    t.topic = -1;
    t.stream = rotor::examples::lda::token_seed(seed, t.doc, t.word, occurrence);
  }
}

int run(int argc, char** argv) {
  rotor::examples::Flags flags(argc, argv, "lda", k_usage);
  const std::string data_path = flags.required("data");
  const auto K = flags.in_range<std::int64_t>("topics", flags.integer("topics", 100), 1, 100000);
  const auto iterations =
      flags.in_range<std::int64_t>("iterations", flags.integer("iterations", 50), 0, 1000000);
  const double alpha = flags.real("alpha", 0.1);
  const double beta = flags.real("beta", 0.01);
  const auto seed = static_cast<std::uint64_t>(flags.integer("seed", 1));
  const std::string sampler = flags.str("sampler", "sparse");
  if (!(alpha > 0) || !(beta > 0)) {
    flags.fail("--alpha and --beta must be > 0");
  }
  if (sampler != "sparse" && sampler != "naive") {
    flags.fail("--sampler: expected sparse or naive, got '" + sampler + "'");
  }
  const bool sparse = sampler == "sparse";
  flags.finish();

  rotor::BagOfWordsInfo info;
  rotor::Dataset<Token> tokens = rotor::load_uci_bow<Token>(data_path, &info);
  if (tokens.empty()) {
    flags.fail(data_path + ": no tokens");
  }
  initialise_tokens(tokens, seed);
  const std::int64_t D = info.documents;
  const std::int64_t V = info.words;
  Counts doc_topic({D, K});
  Counts word_topic({V, K});
  Totals topic_total({K});
  Weights topic_weight({K});
  const rotor::examples::lda::Prior prior{alpha, beta, beta * static_cast<double>(V)};
  // topic_weight caches 1 / (topic_total + V beta): summing the workers' changes to it would be
  // meaningless, so a merge recomputes it from the merged total (topic_total is bound first in
  // the loop and merged first). Matters when merges happen inside the loop
  // (--rotor-flush-every: after each step of the rotation); refresh_weights covers the loop end.
  rotor::buffered_apply(topic_weight, [&topic_total, &prior](double& w, double, std::int64_t k) {
    w = 1.0 / (topic_total[k] + prior.beta_sum);
  });
  std::printf("lda: documents=%lld vocabulary=%lld tokens=%lld topics=%lld sampler=%s\n",
              static_cast<long long>(D), static_cast<long long>(V),
              static_cast<long long>(tokens.size()), static_cast<long long>(K), sampler.c_str());

  double log_likelihood = 0;
  double perplexity = 0;
  double total_seconds = 0;
  double sampling_seconds = 0;
  std::int64_t sampled_iterations = 0; // not restored by --rotor-resume
  refresh_weights(topic_total, topic_weight, prior.beta_sum);
  for (std::int64_t iteration = 1; iteration <= iterations; ++iteration) {
    const rotor::examples::Stopwatch clock;
#pragma rotor parallel_for buffered(topic_total, topic_weight)
    for (Token& t : tokens) {
      auto dt = doc_topic.row(t.doc);
      auto wt = word_topic.row(t.word);
      if (t.topic >= 0) {
        dt[t.topic] -= 1;
        wt[t.topic] -= 1;
        topic_total[t.topic] -= 1;
        topic_weight[t.topic] = 1.0 / (topic_total[t.topic] + prior.beta_sum);
      }
      const double u = rotor::examples::lda::next_uniform(t.stream);
      const int z = sparse ? rotor::examples::lda::sample_sparse(dt, wt, topic_weight, prior, u)
                           : rotor::examples::lda::sample_naive(dt, wt, topic_total, prior, u);
      dt[z] += 1;
      wt[z] += 1;
      topic_total[z] += 1;
      topic_weight[z] = 1.0 / (topic_total[z] + prior.beta_sum);
      t.topic = z;
    }
    refresh_weights(topic_total, topic_weight, prior.beta_sum); // the merged view may be stale
    std::int64_t assigned = 0;
    for (std::int64_t k = 0; k < K; ++k) {
      assigned += topic_total[k];
    }
    if (assigned != tokens.size()) { // every token holds exactly one topic after a sweep
      std::fprintf(stderr, "lda: error: topic totals sum to %lld after iteration %lld, not %lld\n",
                   static_cast<long long>(assigned), static_cast<long long>(iteration),
                   static_cast<long long>(tokens.size()));
      return 1;
    }
    const double sampling = clock.seconds();
    const bool restored = clock.restored();
    if (!restored) {
      sampling_seconds += sampling;
      ++sampled_iterations;
    }
    log_likelihood = rotor::examples::lda::word_log_likelihood(word_topic, topic_total, beta);
    perplexity = std::exp(-log_likelihood / static_cast<double>(tokens.size()));
    const double seconds = clock.seconds();
    total_seconds += seconds;
    rotor::report_metric("log_likelihood", log_likelihood, iteration); // --rotor-metrics=FILE
    rotor::report_metric("perplexity", perplexity, iteration);
    std::printf("iteration=%lld log_likelihood=%s perplexity=%.1f seconds=%.3f tokens_per_s=%s\n",
                static_cast<long long>(iteration), rotor::examples::sci(log_likelihood, 6).c_str(),
                perplexity, seconds,
                rotor::examples::epoch_rate(static_cast<double>(tokens.size()), sampling, restored)
                    .c_str());
    std::fflush(stdout);
  }

  std::uint64_t hash =
      rotor::examples::fnv1a(doc_topic.data(), sizeof(std::int32_t) * doc_topic.size());
  hash = rotor::examples::fnv1a(word_topic.data(), sizeof(std::int32_t) * word_topic.size(), hash);
  const double sampled =
      static_cast<double>(tokens.size()) * static_cast<double>(sampled_iterations);
  std::printf("final iterations=%lld log_likelihood=%s perplexity=%.1f seconds=%.3g "
              "tokens_per_s=%s model_hash=%s\n",
              static_cast<long long>(iterations), rotor::examples::sci(log_likelihood, 6).c_str(),
              perplexity, total_seconds,
              rotor::examples::sci(sampling_seconds > 0 ? sampled / sampling_seconds : 0).c_str(),
              rotor::examples::hex64(hash).c_str());
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  return rotor::examples::main_with_session("lda", argc, argv, run);
}
