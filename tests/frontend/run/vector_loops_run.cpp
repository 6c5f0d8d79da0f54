// Compile-and-run test of loops over a std::vector of records (the inspector): built serially
// (plain compiler) and with rotor-cc; both builds must print the same lines. The updates commute
// (integer counts, a topic computed from the token alone), so any serial order gives one result.
#include <rotor/rotor.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <vector>

struct Token {
  std::int32_t doc;
  std::int32_t word;
  std::int32_t topic;
};

namespace {
// A record type in an anonymous namespace: the rewrite names it `Hit`, not
// `(anonymous namespace)::Hit`.
struct Hit {
  std::int32_t doc;
  std::int32_t count;
};
} // namespace

#define ROTOR_TEST_BUCKETS 64
constexpr int k_squares = 500;

// Integer ranges bounded by constants (a literal, a constexpr, a macro): one_d by the index.
static std::int64_t constant_bounds(std::vector<std::int64_t>& squares,
                                    std::vector<std::int64_t>& buckets) {
#pragma rotor parallel_for
  for (int i = 0; i < k_squares; ++i) {
    squares[i] = std::int64_t{i} * i;
  }
#pragma rotor parallel_for
  for (int b = 0; b < ROTOR_TEST_BUCKETS; b++) {
    buckets[b] += b + 1;
  }
  std::int64_t check = 0;
#pragma rotor parallel_for
  for (int i = 0; i < 300; ++i) {
    squares[i] -= i;
    check += squares[i] % 7;
  }
  for (int i = 0; i < k_squares; ++i) {
    check += (i % 13 + 1) * squares[i];
  }
  for (int b = 0; b < ROTOR_TEST_BUCKETS; ++b) {
    check += (b + 3) * buckets[b];
  }
  return check;
}

// A record with a constructor (trivially copyable, public fields): a plain record too.
struct Scored {
  Scored(std::int32_t id_, float value_) : id(id_), value(value_) {}
  std::int32_t id;
  float value;
  float score = 0;
};

static std::int64_t score_all(std::vector<Scored>& samples, std::vector<std::int64_t>& per_id) {
#pragma rotor parallel_for
  for (Scored& s : samples) {
    s.score = s.value * 2.0f + 1.0f;
    per_id[s.id] += static_cast<std::int64_t>(s.score);
  }
  std::int64_t check = 0;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    check += static_cast<std::int64_t>(i % 11 + 1) * static_cast<std::int64_t>(samples[i].score);
  }
  for (std::size_t id = 0; id < per_id.size(); ++id) {
    check += static_cast<std::int64_t>(id + 1) * per_id[id];
  }
  return check;
}

struct Point2 {
  float x, y;
};

// k-means as goldsborough/k-means writes it: the assignment step is an index loop over the
// points whose index is a key (`assignments[point] = best`): one_d by point. The centroid sums
// run serially on every rank after it, from every rank's whole `assignments`.
static std::int64_t k_means(const std::vector<Point2>& data, std::size_t k, int iterations) {
  std::vector<Point2> means(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(k));
  std::vector<std::size_t> assignments(data.size());
  for (int iteration = 0; iteration < iterations; ++iteration) {
#pragma rotor parallel_for
    for (std::size_t point = 0; point < data.size(); ++point) {
      float best_distance = 1e30f;
      std::size_t best_cluster = 0;
      for (std::size_t cluster = 0; cluster < k; ++cluster) {
        const float dx = data[point].x - means[cluster].x;
        const float dy = data[point].y - means[cluster].y;
        if (dx * dx + dy * dy < best_distance) {
          best_distance = dx * dx + dy * dy;
          best_cluster = cluster;
        }
      }
      assignments[point] = best_cluster;
    }
    std::vector<Point2> sums(k, Point2{0, 0});
    std::vector<std::size_t> counts(k, 0);
    for (std::size_t point = 0; point < data.size(); ++point) {
      sums[assignments[point]].x += data[point].x;
      sums[assignments[point]].y += data[point].y;
      counts[assignments[point]] += 1;
    }
    for (std::size_t cluster = 0; cluster < k; ++cluster) {
      const float count = static_cast<float>(counts[cluster] > 0 ? counts[cluster] : 1);
      means[cluster] = {sums[cluster].x / count, sums[cluster].y / count};
    }
  }
  std::int64_t check = 0;
  for (std::size_t point = 0; point < data.size(); ++point) {
    check += static_cast<std::int64_t>((point % 31 + 1) * assignments[point]);
  }
  for (const Point2& m : means) {
    check +=
        static_cast<std::int64_t>(m.x * 1000.0f) + 7 * static_cast<std::int64_t>(m.y * 1000.0f);
  }
  return check;
}

static std::int64_t count_hits(std::vector<Hit>& hits, std::vector<std::int64_t>& per_doc) {
  std::int64_t total = 0;
#pragma rotor parallel_for
  for (Hit& h : hits) {
    h.count += 1;
    per_doc[h.doc] += h.count;
    total += h.count;
  }
  return total;
}

// A serial plan over a vector runs as written: the body appends through an outside pointer (so the
// plan is serial), and the bound `queue.size()` is read each iteration as in the serial build, so
// the appended tokens are visited too.
static std::int64_t drain(std::vector<Token>& queue, std::vector<Token>* more) {
  std::int64_t sum = 0;
#pragma rotor parallel_for
  for (std::size_t i = 0; i < queue.size(); ++i) {
    sum += queue[i].word;
    if (queue[i].word > 0 && more->size() < 500) {
      more->push_back({queue[i].doc, queue[i].word - 1, 0});
    }
  }
  return sum;
}

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  const int docs = 31, words = 43, topics = 6;
  std::vector<Token> tokens;
  for (int i = 0; i < 4000; ++i) {
    tokens.push_back({(i * 7) % docs, (i * 13) % words, i % topics});
  }
  rotor::DistArray<std::int64_t, 2> doc_topic({docs, topics});
  rotor::DistArray<std::int64_t, 2> word_topic({words, topics});
  for (const Token& t : tokens) {
    doc_topic(t.doc, t.topic) += 1;
    word_topic(t.word, t.topic) += 1;
  }
  for (int sweep = 0; sweep < 3; ++sweep) {
    // Writes each token's topic (a non-key field) and both count tables: rotation over
    // (doc, word); every rank ends with every token's new topic.
#pragma rotor parallel_for
    for (Token& t : tokens) {
      doc_topic(t.doc, t.topic) -= 1;
      word_topic(t.word, t.topic) -= 1;
      t.topic = (t.topic + t.word + sweep + 1) % topics;
      doc_topic(t.doc, t.topic) += 1;
      word_topic(t.word, t.topic) += 1;
    }
    // The same shape as an index loop, through a reference to the element `tokens[n]`.
#pragma rotor parallel_for
    for (std::size_t n = 0; n < tokens.size(); ++n) {
      auto& t = tokens[n];
      doc_topic(t.doc, t.topic) -= 1;
      word_topic(t.word, t.topic) -= 1;
      t.topic = (t.topic * 5 + t.doc + 2) % topics;
      doc_topic(t.doc, t.topic) += 1;
      word_topic(t.word, t.topic) += 1;
    }
  }
  // An index loop reading `tokens[i]` directly: a reduction (one_d by doc).
  std::int64_t words_in_topic_1 = 0;
#pragma rotor parallel_for
  for (std::size_t i = 0; i < tokens.size(); i++) {
    if (tokens[i].topic == 1) {
      words_in_topic_1 += tokens[i].word + static_cast<std::int64_t>(i % 3);
    }
  }
  // Reads the records only (by value): a reduction and one table.
  std::int64_t weighted = 0;
  rotor::DistArray<std::int64_t, 1> per_doc({docs});
#pragma rotor parallel_for
  for (Token t : tokens) {
    if (t.topic == 0) {
      continue;
    }
    per_doc[t.doc] += t.word;
    weighted += t.topic * (t.word + 1);
  }
  std::int64_t topic_sum = 0, dt_check = 0, wt_check = 0, doc_check = 0;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    topic_sum += static_cast<std::int64_t>(i % 97 + 1) * tokens[i].topic;
  }
  for (int d = 0; d < docs; ++d) {
    doc_check += (d + 1) * per_doc[d];
    for (int z = 0; z < topics; ++z) {
      dt_check += (d * topics + z + 1) * doc_topic(d, z);
    }
  }
  for (int w = 0; w < words; ++w) {
    for (int z = 0; z < topics; ++z) {
      wt_check += (w * topics + z + 1) * word_topic(w, z);
    }
  }
  std::vector<Token> queue(tokens.begin(), tokens.begin() + 20);
  const std::int64_t drained = drain(queue, &queue);
  std::vector<Hit> hits;
  for (int i = 0; i < 300; ++i) {
    hits.push_back({i % docs, i % 5});
  }
  std::vector<std::int64_t> hits_per_doc(docs);
  const std::int64_t hit_total = count_hits(hits, hits_per_doc);
  std::vector<std::int64_t> squares(k_squares), buckets(ROTOR_TEST_BUCKETS, 1);
  const std::int64_t constants = constant_bounds(squares, buckets);
  std::vector<Point2> points;
  for (int i = 0; i < 3000; ++i) {
    points.push_back({static_cast<float>((i * 37) % 101) + 0.25f * (i % 3),
                      static_cast<float>((i * 53) % 89) - 0.5f * (i % 7)});
  }
  const std::int64_t clusters = k_means(points, 7, 6);
  std::vector<Scored> samples;
  for (int i = 0; i < 2000; ++i) {
    samples.emplace_back(i % 17, static_cast<float>(i % 23));
  }
  std::vector<std::int64_t> per_id(17);
  const std::int64_t scored = score_all(samples, per_id);
  if (rotor::is_root()) {
    std::printf("constant bounds: %lld k-means: %lld scored: %lld\n",
                static_cast<long long>(constants), static_cast<long long>(clusters),
                static_cast<long long>(scored));
    std::printf("drained=%lld of %zu hits=%lld doc_7=%lld\n", static_cast<long long>(drained),
                queue.size(), static_cast<long long>(hit_total),
                static_cast<long long>(hits_per_doc[7]));
    std::printf("topics=%lld doc_topic=%lld word_topic=%lld per_doc=%lld weighted=%lld "
                "topic_1=%lld\n",
                static_cast<long long>(topic_sum), static_cast<long long>(dt_check),
                static_cast<long long>(wt_check), static_cast<long long>(doc_check),
                static_cast<long long>(weighted), static_cast<long long>(words_in_topic_1));
  }
  return 0;
}
