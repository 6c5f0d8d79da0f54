#pragma once
/// \file
/// Synthetic LDA corpora in the UCI bag-of-words format (`docword.*.txt`).
///
/// \code
///   rotor::gen::CorpusSpec spec;             // 1,000 docs, 5,000 words, 20 topics
///   spec.documents = 20000;
///   rotor::gen::generate_corpus(spec, "docword.synth.txt", "vocab.synth.txt");
/// \endcode
///
/// The LDA generative model: topic k has word distribution phi_k(w) ~ z(w) g_kw, where z is a
/// Zipf(1) base over the vocabulary (so word frequencies are Zipfian) and g_kw ~ Gamma(word_shape)
/// (small shapes make topics distinct); document d has theta_d ~ Dirichlet(alpha), a log-normal
/// length around `mean_length`, and each token draws a topic from theta_d, then a word from that
/// topic. Documents are written one at a time: memory is O(topics x vocabulary). Same spec ->
/// same bytes.

#include <cstdint>
#include <string>

namespace rotor::gen {

struct CorpusSpec {
  std::int64_t documents = 1000;
  std::int64_t vocabulary = 5000;
  int topics = 20;
  double mean_length = 100; ///< tokens per document (log-normal, sigma 0.5)
  double alpha = 0.1;       ///< document-topic Dirichlet concentration (per topic)
  double word_shape = 0.1;  ///< Gamma shape of the per-topic word weights
  std::uint64_t seed = 1;
};

struct CorpusSummary {
  std::int64_t nonzeros = 0;
  std::int64_t tokens = 0;
};

/// Writes `docword_path` (header D, W, NNZ, then `doc word count` lines, 1-based, sorted by
/// document then word) and, if `vocab_path` is not empty, one made-up word per line.
CorpusSummary generate_corpus(const CorpusSpec& spec, const std::string& docword_path,
                              const std::string& vocab_path = "");

} // namespace rotor::gen
