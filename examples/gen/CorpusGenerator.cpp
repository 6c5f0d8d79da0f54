#include "CorpusGenerator.h"

#include "Random.h"
#include "TextWriter.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <vector>

namespace rotor::gen {

namespace {

void check_spec(const CorpusSpec& spec) {
  if (spec.documents < 1 || spec.vocabulary < 1 || spec.vocabulary >= (1LL << 31)) {
    throw std::invalid_argument("documents and vocabulary must be >= 1");
  }
  if (spec.topics < 1 || spec.topics > 100000) {
    throw std::invalid_argument("topics must be in [1, 100000]");
  }
  if (!(spec.mean_length >= 1) || !(spec.alpha > 0) || !(spec.word_shape > 0)) {
    throw std::invalid_argument("mean length must be >= 1, alpha and word shape > 0");
  }
}

/// A pronounceable made-up word for vocabulary id `w` (distinct for distinct ids).
std::string made_up_word(std::int64_t w) {
  static const char* const syllables[] = {"ka", "lo", "mi", "ne", "ru", "sa", "to", "vi",
                                          "ze", "po", "da", "fe", "gu", "ho", "ji", "bu"};
  std::string s;
  do {
    s += syllables[w % 16];
    w /= 16;
  } while (w > 0);
  return s;
}

} // namespace

CorpusSummary generate_corpus(const CorpusSpec& spec, const std::string& docword_path,
                              const std::string& vocab_path) {
  check_spec(spec);
  const auto W = static_cast<std::size_t>(spec.vocabulary);
  const auto K = static_cast<std::size_t>(spec.topics);

  Rng topic_rng(stream_id(spec.seed, 10));
  const auto word_perm = random_permutation(static_cast<std::uint32_t>(W), topic_rng);
  std::vector<AliasTable> topic_words;
  topic_words.reserve(K);
  std::vector<double> weights(W);
  for (std::size_t k = 0; k < K; ++k) {
    for (std::size_t r = 0; r < W; ++r) {
      weights[word_perm[r]] = topic_rng.gamma(spec.word_shape) / static_cast<double>(r + 1);
    }
    topic_words.emplace_back(weights);
  }

  // The body goes to a temporary file: the header needs NNZ, known only at the end.
  const std::string body_path = docword_path + ".body.tmp";
  CorpusSummary summary;
  {
    TextWriter body(body_path);
    std::vector<std::uint32_t> counts(W, 0);
    std::vector<std::uint32_t> touched;
    std::vector<double> theta(K);
    for (std::int64_t d = 0; d < spec.documents; ++d) {
      Rng rng(stream_id(spec.seed, 11, static_cast<std::uint64_t>(d)));
      double sum = 0;
      for (double& t : theta) {
        t = rng.gamma(spec.alpha);
        sum += t;
      }
      if (!(sum > 0)) { // every gamma draw underflowed: fall back to one topic
        theta.assign(K, 0.0);
        theta[rng.below(K)] = sum = 1.0;
      }
      const double mu = std::log(spec.mean_length) - 0.125; // E[exp(N(mu, 0.5^2))] = mean
      const auto length =
          std::max<std::int64_t>(1, std::llround(std::exp(mu + 0.5 * rng.normal())));
      touched.clear();
      for (std::int64_t n = 0; n < length; ++n) {
        double u = rng.uniform() * sum;
        std::size_t k = 0;
        while (k + 1 < K && u >= theta[k]) {
          u -= theta[k];
          ++k;
        }
        const std::uint32_t w = topic_words[k].draw(rng);
        if (counts[w]++ == 0) {
          touched.push_back(w);
        }
      }
      std::sort(touched.begin(), touched.end());
      for (std::uint32_t w : touched) {
        body.put_uint(static_cast<std::uint64_t>(d + 1));
        body.put(' ');
        body.put_uint(w + 1);
        body.put(' ');
        body.put_uint(counts[w]);
        body.put('\n');
        counts[w] = 0;
      }
      summary.nonzeros += static_cast<std::int64_t>(touched.size());
      summary.tokens += length;
    }
    body.close();
  }

  TextWriter out(docword_path);
  out.put_uint(static_cast<std::uint64_t>(spec.documents));
  out.put('\n');
  out.put_uint(static_cast<std::uint64_t>(spec.vocabulary));
  out.put('\n');
  out.put_uint(static_cast<std::uint64_t>(summary.nonzeros));
  out.put('\n');
  FILE* in = std::fopen(body_path.c_str(), "rb");
  if (in == nullptr) {
    throw std::runtime_error("cannot reopen " + body_path);
  }
  std::vector<char> chunk(1 << 20);
  std::size_t got = 0;
  while ((got = std::fread(chunk.data(), 1, chunk.size(), in)) > 0) {
    out.put_bytes(chunk.data(), got);
  }
  std::fclose(in);
  std::remove(body_path.c_str());
  out.close();

  if (!vocab_path.empty()) {
    TextWriter vocab(vocab_path);
    for (std::size_t w = 0; w < W; ++w) {
      vocab.put(made_up_word(static_cast<std::int64_t>(w)));
      vocab.put('\n');
    }
    vocab.close();
  }
  return summary;
}

} // namespace rotor::gen
