#pragma once
/// \file
/// The pieces of the LDA example that are plain numerics: per-token random streams, the two
/// topic samplers and the log-likelihood. Header-only, so both builds of lda.cpp see the bodies.
///
/// Notation: n_dk = doc_topic(d, k), n_wk = word_topic(w, k), n_k = topic_total[k], V the
/// vocabulary size. The collapsed conditional of a token's topic (its own count removed) is
///   p(k) ~ (n_dk + alpha) (n_wk + beta) / (n_k + V beta).

#include <rotor/rotor.h>

#include <array>
#include <cmath>
#include <cstdint>

namespace rotor::examples::lda {

struct Prior {
  double alpha;
  double beta;
  double beta_sum; ///< V * beta
};

/// A token's initial random state from its corpus position (never 0).
inline std::uint32_t token_seed(std::uint64_t seed, std::int64_t doc, std::int64_t word,
                                std::uint32_t occurrence) {
  std::uint64_t x = seed * 0x9e3779b97f4a7c15ULL ^ static_cast<std::uint64_t>(doc) << 32 ^
                    static_cast<std::uint64_t>(word) << 8 ^ occurrence;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return static_cast<std::uint32_t>(x) | 1u;
}

/// Advances `state` (a Weyl sequence) and returns a uniform double in [0, 1) from its mix.
inline double next_uniform(std::uint32_t& state) {
  state += 0x9e3779b9u;
  std::uint32_t z = state;
  z = (z ^ (z >> 16)) * 0x85ebca6bu;
  z = (z ^ (z >> 13)) * 0xc2b2ae35u;
  z ^= z >> 16;
  return static_cast<double>(z) * 0x1.0p-32;
}

/// Stack space for per-topic work; larger K falls back to recomputing instead of storing.
constexpr int k_max_buffered_topics = 2048;

/// The textbook sampler: one O(K) pass builds the cumulative weights, then a linear search.
template <class Row, class Totals>
int sample_naive(const Row& dt, const Row& wt, const Totals& totals, const Prior& p, double u) {
  const int K = static_cast<int>(dt.size());
  if (K > k_max_buffered_topics) { // two passes: total, then walk
    double total = 0;
    for (int k = 0; k < K; ++k) {
      total += (dt[k] + p.alpha) * (wt[k] + p.beta) / (totals[k] + p.beta_sum);
    }
    double x = u * total;
    for (int k = 0; k < K - 1; ++k) {
      x -= (dt[k] + p.alpha) * (wt[k] + p.beta) / (totals[k] + p.beta_sum);
      if (x < 0) {
        return k;
      }
    }
    return K - 1;
  }
  std::array<double, k_max_buffered_topics> cumulative;
  double total = 0;
  for (int k = 0; k < K; ++k) {
    total += (dt[k] + p.alpha) * (wt[k] + p.beta) / (totals[k] + p.beta_sum);
    cumulative[k] = total;
  }
  const double x = u * total;
  for (int k = 0; k < K - 1; ++k) {
    if (x < cumulative[k]) {
      return k;
    }
  }
  return K - 1;
}

/// The same decomposition without stack buffers (K > k_max_buffered_topics): two passes.
template <class Row, class Weights>
int sample_sparse_large(const Row& dt, const Row& wt, const Weights& weight, const Prior& p,
                        double u) {
  const int K = static_cast<int>(dt.size());
  double total = 0;
  for (int k = 0; k < K; ++k) {
    total += (p.alpha * p.beta + p.beta * dt[k] + (dt[k] + p.alpha) * wt[k]) * weight[k];
  }
  double x = u * total;
  for (int k = 0; k < K - 1; ++k) {
    x -= (p.alpha * p.beta + p.beta * dt[k] + (dt[k] + p.alpha) * wt[k]) * weight[k];
    if (x < 0) {
      return k;
    }
  }
  return K - 1;
}

/// SparseLDA's decomposition (Yao, Mimno and McCallum, KDD 2009), with
/// weight[k] = 1 / (n_k + V beta) cached by the caller:
///   p(k) ~ alpha beta weight[k]                smoothing bucket s (every topic, small mass)
///        + beta n_dk weight[k]                 document bucket r (topics in the document)
///        + (n_dk + alpha) n_wk weight[k]       word bucket q (topics of the word: most mass)
/// A branch-free pass lists the non-zero topics of the document and of the word; the r and q
/// weights are computed for those only, and the draw walks the short q list (most of the mass),
/// the r list, or rarely all K topics (s). No division per topic.
template <class Row, class Weights>
int sample_sparse(const Row& dt, const Row& wt, const Weights& weight, const Prior& p, double u) {
  const int K = static_cast<int>(dt.size());
  if (K > k_max_buffered_topics) {
    return sample_sparse_large(dt, wt, weight, p, u);
  }
  std::array<double, k_max_buffered_topics> q_weight;
  std::array<int, k_max_buffered_topics> q_topic;
  std::array<int, k_max_buffered_topics> r_topic;
  double s_part[4] = {0, 0, 0, 0}; // four chains hide the add latency
  int k = 0;
  for (; k + 4 <= K; k += 4) {
    s_part[0] += weight[k];
    s_part[1] += weight[k + 1];
    s_part[2] += weight[k + 2];
    s_part[3] += weight[k + 3];
  }
  for (; k < K; ++k) {
    s_part[0] += weight[k];
  }
  int nq = 0;
  int nr = 0;
  int t = 0;
  for (; t + 8 <= K; t += 8) { // rows are mostly zero for large K: skip empty chunks of 8
    int any = 0;
    for (int j = 0; j < 8; ++j) {
      any |= wt[t + j] | dt[t + j];
    }
    if (any == 0) {
      continue;
    }
    for (int j = t; j < t + 8; ++j) {
      q_topic[nq] = j;
      nq += wt[j] != 0;
      r_topic[nr] = j;
      nr += dt[j] != 0;
    }
  }
  for (; t < K; ++t) {
    q_topic[nq] = t;
    nq += wt[t] != 0;
    r_topic[nr] = t;
    nr += dt[t] != 0;
  }
  double q_mass = 0;
  double r_mass = 0;
  for (int i = 0; i < nr; ++i) {
    const int t = r_topic[i];
    r_mass += dt[t] * weight[t];
  }
  for (int i = 0; i < nq; ++i) {
    const int t = q_topic[i];
    q_weight[i] = (dt[t] + p.alpha) * wt[t] * weight[t];
    q_mass += q_weight[i];
  }
  r_mass *= p.beta;
  const double s_mass = p.alpha * p.beta * (s_part[0] + s_part[1] + s_part[2] + s_part[3]);
  double x = u * (q_mass + r_mass + s_mass);
  if (x < q_mass) {
    for (int i = 0; i < nq - 1; ++i) {
      x -= q_weight[i];
      if (x < 0) {
        return q_topic[i];
      }
    }
    return q_topic[nq - 1];
  }
  x -= q_mass;
  if (x < r_mass) {
    for (int i = 0; i < nr - 1; ++i) {
      const int t = r_topic[i];
      x -= p.beta * dt[t] * weight[t];
      if (x < 0) {
        return t;
      }
    }
    return r_topic[nr - 1];
  }
  x -= r_mass;
  for (int t = 0; t < K - 1; ++t) {
    x -= p.alpha * p.beta * weight[t];
    if (x < 0) {
      return t;
    }
  }
  return K - 1;
}

/// log p(words | topics) with the topic-word distributions integrated out:
///   K [lgamma(V beta) - V lgamma(beta)] + sum_k [sum_w lgamma(n_wk + beta) - lgamma(n_k + V beta)]
/// Zero counts contribute lgamma(beta) each; they are counted, not evaluated.
inline double word_log_likelihood(const rotor::DistArray<std::int32_t, 2>& word_topic,
                                  const rotor::DistArray<std::int32_t, 1>& topic_total,
                                  double beta) {
  const double V = static_cast<double>(word_topic.rows());
  const std::int64_t K = word_topic.cols();
  const double lg_beta = std::lgamma(beta);
  double ll = static_cast<double>(K) * (std::lgamma(V * beta) - V * lg_beta);
  const std::int32_t* n = word_topic.data();
  std::int64_t zeros = 0;
  for (std::int64_t i = 0; i < word_topic.size(); ++i) {
    if (n[i] == 0) {
      ++zeros;
    } else {
      ll += std::lgamma(n[i] + beta);
    }
  }
  ll += static_cast<double>(zeros) * lg_beta;
  for (std::int64_t k = 0; k < K; ++k) {
    ll -= std::lgamma(topic_total[k] + V * beta);
  }
  return ll;
}

} // namespace rotor::examples::lda
