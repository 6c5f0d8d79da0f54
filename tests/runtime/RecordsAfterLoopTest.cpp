// Serial code after a parallel loop sees the loop's records (issue 16, item 5): whole and in the
// dataset's order on every rank (built in memory) or the loaded share on its rank, brought back
// lazily at the first serial access, never between loops that follow each other.
#include "LoopTestUtil.h"

#include <fstream>
#include <sstream>
#include <string>

namespace rotor::test {
namespace {

using codegen::Kind;
using codegen::Role;

std::vector<Token> make_tokens(int n, int docs, int words, int topics, std::uint64_t seed) {
  std::vector<Token> out;
  for (int k = 0; k < n; ++k) {
    const std::uint64_t h = mix(seed * 7919u + static_cast<std::uint64_t>(k));
    out.push_back({static_cast<std::int32_t>(h % static_cast<std::uint64_t>(docs)),
                   static_cast<std::int32_t>((h >> 16) % static_cast<std::uint64_t>(words)),
                   static_cast<std::int32_t>((h >> 30) % static_cast<std::uint64_t>(topics))});
  }
  return out;
}

/// An LDA-shaped loop: takes each token's topic out of the counts, picks a new one from them (a
/// deterministic stand-in for sampling), puts it back; a rotation over (doc, word).
struct LdaLoop {
  int docs, words, topics;
  DistArray<std::int32_t, 2> dt, wt;

  LdaLoop(const std::vector<Token>& tokens, int d, int w, int k)
      : docs(d), words(w), topics(k), dt({d, k}), wt({w, k}) {
    for (const Token& t : tokens) {
      ++dt(t.doc, t.topic);
      ++wt(t.word, t.topic);
    }
  }
  /// One token's update (the loop body, also replayed serially).
  template <class DT, class WT> static void resample(Token& t, DT& dt, WT& wt, int topics) {
    --dt(t.doc, t.topic);
    --wt(t.word, t.topic);
    int best = 0;
    std::int64_t best_score = -1;
    for (int z = 0; z < topics; ++z) {
      const std::int64_t score = (dt(t.doc, z) + 1) * (wt(t.word, z) + 2) +
                                 static_cast<std::int64_t>(mix(t.doc * 131 + t.word * 7 + z) % 3);
      if (score > best_score) {
        best_score = score;
        best = z;
      }
    }
    t.topic = best;
    ++dt(t.doc, t.topic);
    ++wt(t.word, t.topic);
  }
  void run(Dataset<Token>& tokens) {
    auto s = spec(Kind::rotation, {0, 1},
                  {array("dt", Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}),
                   array("wt", Role::rotating, 1, true, {{1, 0, 0}, {-1, 0, 0}})});
    s.writes_records = true;
    std::tuple<> none;
    const int k = topics;
    codegen::run_loop(s, tokens, codegen::keys(&Token::doc, &Token::word), std::tie(dt, wt), none,
                      [k](Token& t, auto& dt, auto& wt) { resample(t, dt, wt, k); });
  }
};

std::string topics_text(const Dataset<Token>& tokens) {
  std::ostringstream out;
  for (const Token& t : tokens) {
    out << t.doc << ' ' << t.word << ' ' << t.topic << '\n';
  }
  return out.str();
}

std::string topics_text(const std::vector<Token>& tokens) {
  std::ostringstream out;
  for (const Token& t : tokens) {
    out << t.doc << ' ' << t.word << ' ' << t.topic << '\n';
  }
  return out.str();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The LDA program writes its per-token topics from rank 0 after its sweeps; the file equals the
// serial build's (the same sweeps replayed in the recorded orders), token for token.
TEST(RecordsAfterLoop, LdaTopicsWrittenFromRank0EqualSerialReplay) {
  CaptureOrders capture;
  const int docs = 23, words = 41, topics = 5;
  std::vector<Token> serial = make_tokens(3000, docs, words, topics, 3);
  Dataset<Token> tokens(serial);
  LdaLoop lda(serial, docs, words, topics);
  LdaLoop reference(serial, docs, words, topics);
  for (int sweep = 0; sweep < 3; ++sweep) {
    lda.run(tokens);
    replay(serial, last_order(),
           [&](Token& t) { LdaLoop::resample(t, reference.dt, reference.wt, topics); });
  }
  // every rank touches the dataset (the collective first access), then rank 0 writes
  EXPECT_EQ(tokens.local_size(), serial.size());
  EXPECT_EQ(tokens.distribution(), Distribution::replicated);
  const std::string path =
      ::testing::TempDir() + "rotor_topics_" + std::to_string(Session::instance().ranks()) + ".txt";
  if (is_root()) {
    std::ofstream(path) << topics_text(tokens);
    EXPECT_EQ(read_file(path), topics_text(serial));
    std::remove(path.c_str());
  }
  EXPECT_EQ(topics_text(tokens), topics_text(serial)); // every rank sees the whole dataset
}

// Two loops in a row bring nothing back in between; the first serial access after them does,
// exactly once.
TEST(RecordsAfterLoop, LoopsInARowDoNotGather) {
  const int docs = 17, words = 19, topics = 4;
  std::vector<Token> records = make_tokens(1500, docs, words, topics, 5);
  Dataset<Token> tokens(records);
  LdaLoop lda(records, docs, words, topics);
  lda.run(tokens);
  const std::uint64_t before = detail::serial_gather_count();
  lda.run(tokens);
  lda.run(tokens);
  EXPECT_EQ(detail::serial_gather_count(), before) << "a loop after a loop gathered the records";
  const bool moved = detail::DatasetInternals::has_origin(tokens) ||
                     tokens.distribution() != Distribution::replicated;
  EXPECT_TRUE(moved || Session::instance().ranks() * Session::instance().threads() == 1);
  EXPECT_EQ(tokens.local_size(), records.size());
  EXPECT_EQ(detail::serial_gather_count(), before + (moved ? 1 : 0));
  for (const Token& t : tokens) {
    (void)t;
  }
  EXPECT_EQ(detail::serial_gather_count(), before + (moved ? 1 : 0)) << "gathered twice";
}

// Serial code changes records after a loop (values and keys); the next loop sees the change.
TEST(RecordsAfterLoop, SerialChangesAfterLoopReachTheNextLoop) {
  CaptureOrders capture;
  const int users = 31, items = 29, k = 4;
  std::vector<Rating> serial = make_ratings(2400, users, items, 9);
  Dataset<Rating> ratings(serial);
  DistArray<double, 2> W({users, k}), H({items, k});
  W.fill_normal(0.0, 0.1, 1);
  H.fill_normal(0.0, 0.1, 2);
  auto W0 = W, H0 = H;
  auto body = [](const Rating& r, auto& W, auto& H) {
    auto w = W.row(r.user);
    auto h = H.row(r.item);
    const double e = r.value - w.dot(h);
    w += 0.01 * e * h;
    h += 0.01 * e * w;
  };
  auto s = spec(Kind::rotation, {0, 1},
                {array("W", Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}),
                 array("H", Role::rotating, 1, true, {{1, 0, 0}, {-1, 0, 0}})});
  std::tuple<> none;
  auto change = [&](Rating& r) {
    r.value = r.value * 2.0f - 1.0f;
    r.item = (r.item * 7 + 3) % items;
  };
  for (int epoch = 0; epoch < 2; ++epoch) {
    codegen::run_loop(s, ratings, codegen::keys(&Rating::user, &Rating::item), std::tie(W, H), none,
                      body);
    replay(serial, last_order(), [&](const Rating& r) { body(r, W0, H0); });
    EXPECT_TRUE(bitwise_equal(W, W0));
    EXPECT_TRUE(bitwise_equal(H, H0));
    ASSERT_EQ(ratings.local_size(), serial.size());
    for (std::size_t i = 0; i < serial.size(); ++i) {
      change(ratings[i]); // in the dataset's order, as the serial program does
      change(serial[i]);
    }
  }
  EXPECT_EQ(std::memcmp(&ratings[0], serial.data(), serial.size() * sizeof(Rating)), 0);
}

// A loaded (distributed) dataset keeps its share semantics: after a loop each rank sees the same
// records it loaded, in their order, with the loop's writes.
TEST(RecordsAfterLoop, LoadedShareComesBackToItsRank) {
  CaptureOrders capture;
  const int docs = 13, words = 37, topics = 3;
  std::vector<Token> serial = make_tokens(2000, docs, words, topics, 11);
  Dataset<Token> tokens = share_of(serial);
  const std::size_t share = tokens.local_size();
  const std::size_t first = serial.size() * static_cast<std::size_t>(Session::instance().rank()) /
                            static_cast<std::size_t>(Session::instance().ranks());
  LdaLoop lda(serial, docs, words, topics);
  LdaLoop reference(serial, docs, words, topics);
  for (int sweep = 0; sweep < 2; ++sweep) {
    lda.run(tokens);
    replay(serial, last_order(),
           [&](Token& t) { LdaLoop::resample(t, reference.dt, reference.wt, topics); });
  }
  EXPECT_EQ(tokens.size(), static_cast<std::int64_t>(serial.size()));
  ASSERT_EQ(tokens.local_size(), share);
  EXPECT_EQ(tokens.distribution(), Distribution::distributed);
  for (std::size_t i = 0; i < share; ++i) {
    EXPECT_EQ(tokens[i].doc, serial[first + i].doc) << "record " << first + i;
    EXPECT_EQ(tokens[i].word, serial[first + i].word) << "record " << first + i;
    EXPECT_EQ(tokens[i].topic, serial[first + i].topic) << "record " << first + i;
  }
}

} // namespace
} // namespace rotor::test
